import path from 'node:path';
import swc from 'unplugin-swc';
import { defineConfig } from 'vitest/config';

// Workspace packages resolve to their TypeScript source in tests, so no build is needed first.
const alias = {
  '@tollgate/rate-limit': path.resolve(__dirname, 'libs/rate-limit/src/index.ts'),
  '@tollgate/contracts': path.resolve(__dirname, 'libs/contracts/src/index.ts'),
  '@tollgate/nest-guard': path.resolve(__dirname, 'libs/nest-guard/src/index.ts'),
};

// esbuild drops emitDecoratorMetadata, which leaves Nest's constructor injection undefined: SWC keeps it.
const plugins = [swc.vite({ module: { type: 'es6' } })];

export default defineConfig({
  plugins,
  resolve: { alias },
  test: {
    // The JSON report lets .ci/run print one plain 'N passed, N failed' line at the end.
    reporters: ['default', 'json'],
    outputFile: { json: 'test-output/vitest.json' },
    projects: [
      {
        plugins,
        resolve: { alias },
        test: {
          name: 'unit',
          include: ['libs/*/src/**/*.spec.ts', 'apps/api/src/**/*.spec.ts', 'apps/dashboard/lib/**/*.spec.ts', 'scripts/**/*.spec.ts'],
        },
      },
      {
        plugins,
        resolve: { alias },
        test: {
          name: 'integration',
          include: ['libs/*/src/**/*.integration-spec.ts', 'apps/api/src/**/*.integration-spec.ts', 'test/e2e/**/*.e2e-spec.ts'],
          globalSetup: ['test/support/global-setup.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        plugins,
        resolve: { alias },
        test: {
          name: 'browser',
          // Whole-system suites (npm start, the browser): they build and run the apps, one at a time.
          include: ['test/browser/**/*.browser-spec.ts', 'test/system/**/*.system-spec.ts'],
          globalSetup: ['test/support/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
