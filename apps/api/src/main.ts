import 'reflect-metadata';
import { createApp } from './app.factory';
import { EnvError, parseEnv } from './config/env';
import { PreflightError, preflight } from './infra/preflight';

async function main(): Promise<void> {
  const env = parseEnv();
  await preflight(env.DATABASE_URL, env.REDIS_URL);
  const app = await createApp(env);
  await app.listen({ port: env.PORT, host: env.HOST });
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : env.PORT;
  console.log(`Tollgate API listening on http://127.0.0.1:${port} (docs: http://127.0.0.1:${port}/docs)`);
}

main().catch((error: unknown) => {
  // Configuration and reachability problems are the user's to fix: one line, no stack trace.
  if (error instanceof EnvError || error instanceof PreflightError) {
    console.error(`tollgate: ${error.message}`);
  } else if ((error as { code?: unknown }).code === 'EADDRINUSE') {
    const { address, port } = error as { address?: string; port?: number };
    console.error(`tollgate: ${address ?? 'the address'}:${port ?? ''} is already in use: stop what listens there, or set PORT (and HOST) to another.`);
  } else {
    console.error('tollgate: the API failed to start:', error);
  }
  process.exit(1);
});
