// Prisma's CLI normally downloads a Rust schema engine; this network cannot reach its host.
// `engine: "js"` runs the schema engine in wasm over @prisma/adapter-pg@7, so generate and
// `migrate deploy` work with nothing but the npm registry (see ../shared/docs/environment.md).
import path from 'node:path';
import { PrismaPg } from '@prisma/adapter-pg';
import { defineConfig } from 'prisma/config';

// The schema reads env("DATABASE_URL"); give it the contract's default so `generate` works without one.
process.env.DATABASE_URL ??= 'postgresql://postgres@127.0.0.1:5432/tollgate';
const databaseUrl = process.env.DATABASE_URL;

export default defineConfig({
  experimental: { adapter: true },
  engine: 'js',
  schema: path.join('prisma', 'schema.prisma'),
  migrations: { path: path.join('prisma', 'migrations') },
  async adapter() {
    return new PrismaPg({ connectionString: databaseUrl });
  },
});
