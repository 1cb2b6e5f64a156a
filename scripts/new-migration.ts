// `npm run db:migration:new -- <name>`: writes prisma/migrations/<stamp>_<name>/migration.sql with the
// SQL that takes the schema as last committed (git HEAD) to prisma/schema.prisma as it is now.
// `prisma migrate dev` needs a shadow database and a binary engine; this needs neither.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..');
const name = process.argv[2];
if (!name || !/^[a-z0-9_]+$/.test(name)) {
  console.error('usage: npm run db:migration:new -- <name>   (lowercase letters, digits, underscores)');
  process.exit(2);
}

let previous = '';
try {
  previous = execFileSync('git', ['show', 'HEAD:prisma/schema.prisma'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
} catch {
  // No committed schema yet: diff from an empty database.
}
const scratch = mkdtempSync(path.join(tmpdir(), 'tollgate-migration-'));
const previousPath = path.join(scratch, 'schema.prisma');
writeFileSync(previousPath, previous);

const from = previous ? ['--from-schema-datamodel', previousPath] : ['--from-empty'];
const diff = spawnSync(
  process.execPath,
  [path.join(ROOT, 'node_modules/prisma/build/index.js'), 'migrate', 'diff', ...from, '--to-schema-datamodel', 'prisma/schema.prisma', '--script'],
  // The wasm engine connects through the adapter even for a schema-to-schema diff: give it the maintenance database.
  { cwd: ROOT, encoding: 'utf8', env: { ...process.env, DATABASE_URL: process.env.MIGRATION_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres', CHECKPOINT_DISABLE: '1' } },
);
if (diff.status !== 0) {
  console.error(diff.stderr || diff.stdout);
  process.exit(1);
}
const sql = diff.stdout.trim();
if (!sql || /^-- This is an empty migration/.test(sql)) {
  console.log('prisma/schema.prisma matches the committed schema: no migration written.');
  process.exit(0);
}
const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
const dir = path.join(ROOT, 'prisma/migrations', `${stamp}_${name}`);
mkdirSync(dir, { recursive: true });
writeFileSync(path.join(dir, 'migration.sql'), sql + '\n');
console.log(`Wrote ${path.relative(ROOT, dir)}/migration.sql`);
