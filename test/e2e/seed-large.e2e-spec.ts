// `npm run db:seed:large` on real Postgres, at a small size: the command as users run it (tsx,
// DATABASE_URL, flags), then what it left in the database, what it printed, and what a second
// run says.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/database';

const ROOT = path.resolve(__dirname, '../..');
const TSX = path.join(ROOT, 'node_modules/.bin/tsx');
const KEYS = 200;
const ACTIVE = 20;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function seedLarge(databaseUrl: string, args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(TSX, ['prisma/seed-large.ts', ...args], { cwd: ROOT, env: { ...process.env, DATABASE_URL: databaseUrl }, timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

describe('db:seed:large', () => {
  let db: TestDatabase;
  let pg: Client;
  let first: Run;

  beforeAll(async () => {
    db = await createTestDatabase();
    first = await seedLarge(db.url, ['--keys', String(KEYS), '--active', String(ACTIVE)]);
    pg = new Client({ connectionString: db.url });
    await pg.connect();
  }, 90_000);

  afterAll(async () => {
    await pg?.end();
    await db?.drop();
  });

  it('creates the asked-for keys on the "bulk" plan, over keys/100 owners, storing only hashes', async () => {
    expect(first.code, `${first.stdout}\n${first.stderr}`).toBe(0);
    const plans = await pg.query<{ id: string }>(`SELECT id FROM "Plan" WHERE name = 'bulk'`);
    expect(plans.rows).toHaveLength(1);
    const keys = await pg.query<{ hash: string; start: string; ownerId: string; planId: string; prefix: string }>(`SELECT hash, start, "ownerId", "planId", prefix FROM "ApiKey" WHERE "deletedAt" IS NULL`);
    expect(keys.rows).toHaveLength(KEYS);
    expect(new Set(keys.rows.map((k) => k.planId))).toEqual(new Set([plans.rows[0]!.id]));

    const owners = new Set(keys.rows.map((k) => k.ownerId));
    expect(owners).toEqual(new Set(['cust_00000', 'cust_00001'])); // 200 keys / 100 per owner, drawn at random

    for (const key of keys.rows) {
      expect(key.hash).toMatch(/^[0-9a-f]{64}$/);
      expect(key.start).toMatch(/^tg_[1-9A-HJ-NP-Za-km-z]{5}$/);
      expect(key.prefix).toBe('tg');
    }
    expect(new Set(keys.rows.map((k) => k.hash)).size).toBe(KEYS);
  });

  it('prints progress and no secret, not even the start of one', () => {
    const output = `${first.stdout}\n${first.stderr}`;
    expect(first.stdout).toContain(`${KEYS} keys created (no secrets printed`);
    expect(output).not.toMatch(/tg_[1-9A-HJ-NP-Za-km-z]{6,}/);
    return pg.query<{ start: string }>('SELECT start FROM "ApiKey"').then(({ rows }) => {
      for (const { start } of rows) expect(output).not.toContain(start);
    });
  });

  it('gives a day of minute usage to the active keys, with hour and day rollups that sum it exactly', async () => {
    const perGranularity = await pg.query<{ granularity: string; keys: string; rows: string }>(
      `SELECT granularity::text, count(DISTINCT "keyId") AS keys, count(*) AS rows FROM "UsageRollup" GROUP BY 1 ORDER BY 1`,
    );
    const by = Object.fromEntries(perGranularity.rows.map((r) => [r.granularity, { keys: Number(r.keys), rows: Number(r.rows) }]));
    expect(by.minute?.keys).toBe(ACTIVE);
    expect(by.hour?.keys).toBe(ACTIVE);
    expect(by.day?.keys).toBe(ACTIVE);
    // Each active key is busy in 20-100 % of the 1,440 minutes of the last day.
    expect(by.minute!.rows).toBeGreaterThan(ACTIVE * 1440 * 0.1);
    expect(by.minute!.rows).toBeLessThanOrEqual(ACTIVE * 1440);
    const span = await pg.query<{ oldest: Date; newest: Date }>(`SELECT min("bucketStart") AS oldest, max("bucketStart") AS newest FROM "UsageRollup" WHERE granularity = 'minute'`);
    expect(span.rows[0]!.newest.getTime() - span.rows[0]!.oldest.getTime()).toBeLessThan(86_400_000);

    for (const granularity of ['hour', 'day'] as const) {
      // Every (key, bucket) of the coarser rollup against the sum of its minute rows, both ways.
      const mismatches = await pg.query(
        `WITH summed AS (
           SELECT "keyId", date_trunc('${granularity}', "bucketStart") AS bucket,
                  sum(valid) AS valid, sum("rateLimited") AS rl, sum("quotaExceeded") AS qe, sum(invalid) AS inv
             FROM "UsageRollup" WHERE granularity = 'minute' GROUP BY 1, 2),
         rolled AS (
           SELECT "keyId", "bucketStart" AS bucket, valid, "rateLimited" AS rl, "quotaExceeded" AS qe, invalid AS inv
             FROM "UsageRollup" WHERE granularity = '${granularity}')
         SELECT * FROM summed s FULL OUTER JOIN rolled r USING ("keyId", bucket)
          WHERE s.valid IS DISTINCT FROM r.valid OR s.rl IS DISTINCT FROM r.rl OR s.qe IS DISTINCT FROM r.qe OR s.inv IS DISTINCT FROM r.inv`,
      );
      expect(mismatches.rows, `${granularity} rollups that are not the sum of their minutes`).toEqual([]);
    }
    const totals = await pg.query<{ granularity: string; total: string }>(`SELECT granularity::text, sum(valid + "rateLimited" + "quotaExceeded" + invalid) AS total FROM "UsageRollup" GROUP BY 1`);
    const total = Object.fromEntries(totals.rows.map((r) => [r.granularity, Number(r.total)]));
    expect(total.minute).toBeGreaterThan(0);
    expect(total.hour).toBe(total.minute);
    expect(total.day).toBe(total.minute);

    const used = await pg.query<{ n: string }>(`SELECT count(*) AS n FROM "ApiKeyActivity"`);
    expect(Number(used.rows[0]!.n)).toBe(ACTIVE);
  });

  it('refuses a second run that asks for no more keys, saying why, and changes nothing', async () => {
    const before = await pg.query<{ keys: string; rollups: string }>(`SELECT (SELECT count(*) FROM "ApiKey") AS keys, (SELECT count(*) FROM "UsageRollup") AS rollups`);
    const again = await seedLarge(db.url, ['--keys', String(KEYS), '--active', String(ACTIVE)]);
    expect(again.code).toBe(1);
    expect(again.stderr.trim()).toBe(`db:seed:large: plan "bulk" already has ${KEYS} keys (>= ${KEYS}): nothing to do. Ask for more with --keys, or use a fresh database.`);
    expect(again.stderr).not.toMatch(/\n\s+at /); // one line, no stack trace
    const after = await pg.query<{ keys: string; rollups: string }>(`SELECT (SELECT count(*) FROM "ApiKey") AS keys, (SELECT count(*) FROM "UsageRollup") AS rollups`);
    expect(after.rows[0]).toEqual(before.rows[0]);
  });
});
