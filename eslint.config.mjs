// One lint config for the workspace. The module-boundary rule below keeps the engine pure:
// libs/rate-limit may not import Nest, Prisma, HTTP servers or any other Tollgate package.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: ['**/node_modules/**', '**/dist/**', '**/.next/**', '**/.nx/**', 'apps/dashboard/next-env.d.ts', 'bench/results/**', 'test-output/**', 'coverage/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', __dirname: 'readonly', require: 'readonly', module: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', Buffer: 'readonly', URL: 'readonly', fetch: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'off',
      'no-console': 'off',
    },
  },
  {
    // Tests read loosely typed JSON bodies; asserting on them is the point.
    files: ['test/**/*.ts', '**/*.spec.ts', '**/*.integration-spec.ts', '**/*.e2e-spec.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', '@typescript-eslint/no-non-null-assertion': 'off' },
  },
  {
    files: ['libs/rate-limit/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: ['@nestjs/*'], message: 'libs/rate-limit is the pure engine: no Nest.' },
          { group: ['@prisma/*', 'prisma', 'pg'], message: 'libs/rate-limit is the pure engine: no Prisma or Postgres.' },
          { group: ['fastify', 'express', 'node:http', 'http', 'node:https', 'https', 'undici'], message: 'libs/rate-limit is the pure engine: no HTTP.' },
          { group: ['@tollgate/*', '../../../apps/*', '../../*'], message: 'libs/rate-limit depends on nothing of ours.' },
        ],
      }],
    },
  },
  {
    files: ['libs/contracts/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: ['@nestjs/*', '@prisma/*', 'ioredis', 'pg'], message: 'libs/contracts is shared with the browser: schemas and types only.' },
        ],
      }],
    },
  },
);
