import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Client } from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { describeSeed, seed } from '../../prisma/seed';
import { createEmptyDatabase, createTestDatabase, type TestDatabase } from '../support/database';

const ROOT = path.resolve(__dirname, '../..');
const API_MAIN = path.join(ROOT, 'apps/api/dist/main.js');

function runApi(env: Record<string, string>) {
  return spawnSync(process.execPath, [API_MAIN], { cwd: ROOT, env: { ...process.env, ...env }, encoding: 'utf8', timeout: 20_000 });
}

describe('boot failures are one clear line and exit 1', () => {
  it('names an unreachable Postgres URL and how to start it', () => {
    const result = runApi({ DATABASE_URL: 'postgresql://postgres:hunter2@127.0.0.1:1/tollgate' });
    expect(result.status).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('Cannot reach Postgres at postgresql://postgres:***@127.0.0.1:1/tollgate');
    expect(lines[0]).toContain('docker compose up -d postgres redis');
    expect(result.stderr).not.toContain('hunter2');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('names an unreachable Redis URL', async () => {
    // A reachable, migrated database of its own, so Redis is the one thing missing (the default
    // DATABASE_URL's database need not exist on a fresh machine).
    const db = await createTestDatabase();
    let result: ReturnType<typeof runApi>;
    try {
      result = runApi({ DATABASE_URL: db.url, REDIS_URL: 'redis://127.0.0.1:1' });
    } finally {
      await db.drop();
    }
    expect(result.status).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('Cannot reach Redis at redis://127.0.0.1:1');
  });

  it('names a port already in use in one line', async () => {
    const db = await createTestDatabase();
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', () => resolve()));
    const port = (blocker.address() as net.AddressInfo).port;
    let result: ReturnType<typeof runApi>;
    try {
      result = runApi({ DATABASE_URL: db.url, PORT: String(port), HOST: '127.0.0.1' });
    } finally {
      blocker.close();
      await db.drop();
    }
    expect(result.status).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain(`127.0.0.1:${port} is already in use`);
  });

  it('names an invalid variable', () => {
    const result = runApi({ PORT: 'eighty' });
    expect(result.status).toBe(1);
    expect(result.stderr.trim()).toMatch(/^tollgate: Invalid environment: PORT: /);
  });
});

describe('npm run db:migrate', () => {
  const databases: TestDatabase[] = [];
  afterAll(async () => {
    for (const db of databases) await db.drop();
  });

  it('creates every table on an empty database, and is a no-op the second time', async () => {
    const db = await createEmptyDatabase();
    databases.push(db);
    const run = () => spawnSync('npm', ['run', '--silent', 'db:migrate'], { cwd: ROOT, env: { ...process.env, DATABASE_URL: db.url }, encoding: 'utf8', timeout: 60_000 });
    const first = run();
    expect(first.status, first.stderr).toBe(0);
    const client = new Client({ connectionString: db.url });
    await client.connect();
    const { rows } = await client.query<{ tablename: string }>("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename");
    await client.end();
    expect(rows.map((row) => row.tablename)).toEqual([
      'AdminSession', 'AdminUser', 'ApiKey', 'ApiKeyActivity', 'AuditLog', 'Plan', 'PlanLimit', 'RootKey', 'UsageFlush', 'UsageRollup', 'UsageRollup_day', 'UsageRollup_hour', 'UsageRollup_minute', 'Webhook', 'WebhookDelivery', '_prisma_migrations',
    ]);
    const second = run();
    expect(second.status).toBe(0);
    expect(second.stdout).toContain('No pending migrations');
  }, 90_000);

  /**
   * A fresh database with every migration before the one ending in `suffix` applied, as `migrate
   * deploy` would; `applyTarget()` then applies that one (on the same connection, to check it).
   */
  async function migratedUpTo(suffix: string): Promise<{ client: Client; applyTarget: () => Promise<unknown> }> {
    const db = await createEmptyDatabase();
    databases.push(db);
    const migrations = readdirSync(path.join(ROOT, 'prisma/migrations')).filter((name) => /^\d+_/.test(name)).sort();
    const target = migrations.findIndex((name) => name.endsWith(suffix));
    expect(target).toBeGreaterThan(0);
    const apply = (client: Client, name: string) => client.query(readFileSync(path.join(ROOT, 'prisma/migrations', name, 'migration.sql'), 'utf8'));
    const client = new Client({ connectionString: db.url });
    await client.connect();
    for (const name of migrations.slice(0, target)) await apply(client, name);
    return { client, applyTarget: () => apply(client, migrations[target]) };
  }

  it('api_key_activity moves every ApiKey.lastUsedAt into ApiKeyActivity: none is lost', async () => {
    // The migrations before it, applied as `migrate deploy` would, on a database holding keys.
    const { client, applyTarget } = await migratedUpTo('_api_key_activity');
    try {
      await client.query(`INSERT INTO "Plan" (id, name, "updatedAt") VALUES ('plan_m', 'm', now())`);
      await client.query(
        `INSERT INTO "ApiKey" (id, hash, start, prefix, name, "planId", "updatedAt", "lastUsedAt")
         VALUES ('key_used', 'h1', 'tg_a', 'tg', 'used', 'plan_m', now(), '2026-11-30 12:34:00'), ('key_never', 'h2', 'tg_b', 'tg', 'never', 'plan_m', now(), NULL)`,
      );
      await applyTarget();
      const { rows } = await client.query<{ keyId: string; lastUsedAt: Date }>(`SELECT "keyId", "lastUsedAt" FROM "ApiKeyActivity" ORDER BY 1`);
      expect(rows).toEqual([{ keyId: 'key_used', lastUsedAt: new Date('2026-11-30T12:34:00.000Z') }]);
      const columns = await client.query(`SELECT 1 FROM information_schema.columns WHERE table_name = 'ApiKey' AND column_name = 'lastUsedAt'`);
      expect(columns.rowCount).toBe(0);
      const options = await client.query<{ reloptions: string[] }>(`SELECT reloptions FROM pg_class WHERE relname = 'ApiKeyActivity'`);
      expect(options.rows[0].reloptions).toEqual(['fillfactor=80']);
    } finally {
      await client.end();
    }
  }, 60_000);

  it('key_counter_id gives every rotated key the first key of its rotation line', async () => {
    const { client, applyTarget } = await migratedUpTo('_key_counter_id');
    try {
      await client.query(`INSERT INTO "Plan" (id, name, "updatedAt") VALUES ('plan_c', 'c', now())`);
      // a -> b -> c is one rotation line; d stands alone.
      for (const [id, from] of [['key_a', null], ['key_b', 'key_a'], ['key_c', 'key_b'], ['key_d', null]]) {
        await client.query(`INSERT INTO "ApiKey" (id, hash, start, prefix, name, "planId", "updatedAt", "rotatedFromId") VALUES ($1, $1, 'tg_x', 'tg', $1, 'plan_c', now(), $2)`, [id, from]);
      }
      await applyTarget();
      const { rows } = await client.query<{ id: string; counterId: string | null }>(`SELECT id, "counterId" FROM "ApiKey" ORDER BY id`);
      expect(rows).toEqual([
        { id: 'key_a', counterId: null },
        { id: 'key_b', counterId: 'key_a' },
        { id: 'key_c', counterId: 'key_a' },
        { id: 'key_d', counterId: null },
      ]);
    } finally {
      await client.end();
    }
  }, 60_000);

  it('usage_rollup_partitions moves every rollup row into its granularity\'s partition: none is lost', async () => {
    const { client, applyTarget } = await migratedUpTo('_usage_rollup_partitions');
    try {
      const columns = `"keyId", "ownerId", "planId", granularity::text, "bucketStart", valid::int, "rateLimited"::int, "quotaExceeded"::int, invalid::int`;
      await client.query(
        `INSERT INTO "UsageRollup" ("keyId", "ownerId", "planId", granularity, "bucketStart", valid, "rateLimited", "quotaExceeded", invalid)
         SELECT 'key_' || k, 'owner_' || (k % 3), CASE WHEN k % 2 = 0 THEN 'plan_a' END, g::"Granularity", timestamp '2026-11-30 00:00' + k * interval '1 minute', k, k % 5, k % 7, k % 2
         FROM generate_series(1, 300) AS k, unnest(ARRAY['minute', 'hour', 'day']) AS g`,
      );
      const before = (await client.query(`SELECT ${columns} FROM "UsageRollup" ORDER BY 1, 4, 5`)).rows;
      expect(before).toHaveLength(900);
      await applyTarget();
      expect((await client.query(`SELECT ${columns} FROM "UsageRollup" ORDER BY 1, 4, 5`)).rows).toEqual(before);
      // Each row sits in its own granularity's partition; hour and day leave room for HOT updates.
      const parts = await client.query<{ part: string; granularity: string; rows: number; reloptions: string[] | null }>(
        `SELECT c.relname AS part, min(r.granularity::text) AS granularity, count(*)::int AS rows, c.reloptions
         FROM "UsageRollup" r JOIN pg_class c ON c.oid = r.tableoid GROUP BY c.relname, c.reloptions ORDER BY 1`,
      );
      expect(parts.rows).toEqual([
        { part: 'UsageRollup_day', granularity: 'day', rows: 300, reloptions: ['fillfactor=70'] },
        { part: 'UsageRollup_hour', granularity: 'hour', rows: 300, reloptions: ['fillfactor=70'] },
        { part: 'UsageRollup_minute', granularity: 'minute', rows: 300, reloptions: null },
      ]);
      const leftover = await client.query(`SELECT 1 FROM pg_class WHERE relname LIKE 'UsageRollup_unpartitioned%'`);
      expect(leftover.rowCount).toBe(0);
    } finally {
      await client.end();
    }
  }, 60_000);

  it('shaping_leaky_bucket_only clears shaping where the engine refuses it, and keeps the rest of each limit', async () => {
    const { client, applyTarget } = await migratedUpTo('_shaping_leaky_bucket_only');
    try {
      await client.query(`INSERT INTO "Plan" (id, name, "updatedAt") VALUES ('plan_s', 's', now())`);
      await client.query(
        `INSERT INTO "PlanLimit" (id, "planId", name, algorithm, "limit", "windowMs", shaping, position) VALUES
         ('pl_1', 'plan_s', 'smooth', 'leaky_bucket', 10, 1000, true, 0), ('pl_2', 'plan_s', 'burst', 'token_bucket', 5, 1000, true, 1)`,
      );
      const overrides = [
        { name: 'smooth', algorithm: 'leaky_bucket', limit: 2, windowMs: 1000, scope: 'key', shaping: true },
        { name: 'daily', algorithm: 'fixed_window', limit: 9, windowMs: 86_400_000, scope: 'owner', shaping: true },
        { name: 'burst', algorithm: 'gcra', limit: 3, windowMs: 1000, scope: 'key', shaping: false },
      ];
      await client.query(
        `INSERT INTO "ApiKey" (id, hash, start, prefix, name, "planId", "updatedAt", limits) VALUES
         ('key_o', 'h1', 'tg_a', 'tg', 'o', 'plan_s', now(), $1), ('key_p', 'h2', 'tg_b', 'tg', 'p', 'plan_s', now(), '[]')`,
        [JSON.stringify(overrides)],
      );
      await applyTarget();
      const plan = await client.query(`SELECT name, shaping FROM "PlanLimit" ORDER BY position`);
      expect(plan.rows).toEqual([{ name: 'smooth', shaping: true }, { name: 'burst', shaping: false }]);
      const keys = await client.query<{ id: string; limits: unknown; version: number }>(`SELECT id, limits, version FROM "ApiKey" ORDER BY id`);
      const { shaping: _dropped, ...daily } = overrides[1];
      expect(keys.rows).toEqual([
        { id: 'key_o', limits: [overrides[0], daily, overrides[2]], version: 2 },
        { id: 'key_p', limits: [], version: 1 },
      ]);
    } finally {
      await client.end();
    }
  });
});

describe('npm run db:seed', () => {
  let db: TestDatabase;
  afterAll(async () => db?.drop());

  it('creates the demo plan, key and admin once, storing only hashes', async () => {
    db = await createTestDatabase();
    const first = await seed(db.url, {});
    expect(first.demoKey).toMatch(/^tg_[1-9A-HJ-NP-Za-km-z]{30,34}$/);
    expect(first.adminPassword).toBeDefined();
    const second = await seed(db.url, {});
    expect(second.demoKey).toBeUndefined();
    expect(second.adminPassword).toBeUndefined();
    expect(second.demoKeyId).toBe(first.demoKeyId);
    expect(describeSeed(second).join('\n')).not.toContain(first.demoKey);

    const client = new Client({ connectionString: db.url });
    await client.connect();
    const plans = await client.query('SELECT name FROM "Plan" ORDER BY name');
    expect(plans.rows.map((row) => row.name)).toEqual(['free', 'pro']);
    const keys = await client.query('SELECT hash, start FROM "ApiKey"');
    expect(keys.rowCount).toBe(1);
    expect(keys.rows[0].hash).toMatch(/^[0-9a-f]{64}$/);
    expect(keys.rows[0].start).toBe(first.demoKey!.slice(0, 8));
    // The seed's writes are audited with real target ids (the dashboard links them).
    const audit = await client.query<{ action: string; targetId: string }>('SELECT action, "targetId" FROM "AuditLog" ORDER BY action, "targetId"');
    const planIds = (await client.query<{ id: string }>('SELECT id FROM "Plan" ORDER BY id')).rows.map((row) => row.id);
    expect(audit.rows.filter((row) => row.action === 'plan.create').map((row) => row.targetId).sort()).toEqual(planIds);
    expect(audit.rows.filter((row) => row.action === 'key.create').map((row) => row.targetId)).toEqual([first.demoKeyId]);
    const dump =
      JSON.stringify((await client.query('SELECT * FROM "ApiKey"')).rows) +
      JSON.stringify((await client.query('SELECT * FROM "AdminUser"')).rows) +
      JSON.stringify((await client.query('SELECT * FROM "AuditLog"')).rows);
    expect(dump).not.toContain(first.demoKey);
    expect(dump).not.toContain(first.adminPassword);
    await client.end();
  });

});
