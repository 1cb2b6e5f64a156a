// `npm run db:seed:large [-- --keys N] [-- --active N]`: load data for trying the dashboard (and
// benchmarking its API) at scale. Into DATABASE_URL (default the local tollgate database) it adds
// a plan "bulk" (once), N keys on it (default 100 000) spread over ~N/100 owners with random
// names, and a day of usage for a subset of "active" keys (default 500): sparse minute rollups for
// the last 24 h, plus the hour and day rollups that sum them.
//
// Secrets are random and never printed (only their hashes are stored): these keys are load data,
// not credentials anyone can use. Bulk inserts go through `pg` with unnest() arrays, 5 000 rows
// a statement; the usage rows are generated inside Postgres. Running it again tops the plan up
// to N keys, and refuses when the plan already has N.
import { Client } from 'pg';
import { randomInt } from 'node:crypto';
import { newId } from '../apps/api/src/infra/ids';
import { issueSecret } from '../apps/api/src/keys/key-secret';

export const BULK_PLAN = 'bulk';
const CHUNK = 5000;

export interface SeedLargeOptions {
  keys: number;
  /** Keys with a day of usage. */
  active: number;
  /** Default keys / 100 (at least 1). */
  owners?: number;
  log?: (line: string) => void;
}

export interface SeedLargeResult {
  planId: string;
  keysCreated: number;
  keysTotal: number;
  owners: number;
  activeKeys: number;
  usageRows: { minute: number; hour: number; day: number };
  durationMs: number;
}

const ADJECTIVES = ['amber', 'bold', 'brisk', 'calm', 'crimson', 'dusty', 'eager', 'fancy', 'gentle', 'golden', 'hidden', 'icy', 'jolly', 'lucky', 'mellow', 'misty', 'noble', 'olive', 'proud', 'quiet', 'rapid', 'rusty', 'silent', 'silver', 'swift', 'tidy', 'urban', 'vivid', 'wild', 'young'];
const NOUNS = ['badger', 'beacon', 'canyon', 'comet', 'falcon', 'forest', 'harbor', 'heron', 'island', 'lantern', 'meadow', 'orbit', 'otter', 'panda', 'pixel', 'prairie', 'quartz', 'raven', 'river', 'rocket', 'summit', 'tiger', 'tundra', 'valley', 'walrus', 'willow', 'zephyr'];
const ENVS = ['production', 'staging', 'dev', 'ci', 'mobile', 'backend', 'batch', 'partner'];

const pick = <T>(list: readonly T[]): T => list[randomInt(list.length)]!;

export function randomKeyName(): string {
  return `${pick(ADJECTIVES)} ${pick(NOUNS)} ${pick(ENVS)} ${randomInt(10_000)}`;
}

export function ownerId(index: number): string {
  return `cust_${String(index).padStart(5, '0')}`;
}

async function ensurePlan(db: Client): Promise<string> {
  const found = await db.query<{ id: string }>('SELECT id FROM "Plan" WHERE name = $1', [BULK_PLAN]);
  if (found.rows[0]) return found.rows[0].id;
  const id = newId('plan');
  await db.query('BEGIN');
  try {
    await db.query(
      `INSERT INTO "Plan" (id, name, description, "quotaLimit", "quotaPeriod", "quotaResetDay", "updatedAt")
       VALUES ($1, $2, 'Load data from db:seed:large: bursts of 50, 1,000 a minute, 1,000,000 a month.', 1000000, 'month', 1, now())`,
      [id, BULK_PLAN],
    );
    await db.query(
      `INSERT INTO "PlanLimit" (id, "planId", name, algorithm, "limit", "windowMs", burst, position) VALUES
         ($1, $3, 'burst', 'token_bucket', 50, 1000, 50, 0),
         ($2, $3, 'sustained', 'sliding_window', 1000, 60000, NULL, 1)`,
      [newId('lim'), newId('lim'), id],
    );
    await db.query(`INSERT INTO "AuditLog" (id, actor, action, "targetType", "targetId", after) VALUES ($1, 'system:seed-large', 'plan.create', 'plan', $2, $3)`, [
      newId('aud'),
      id,
      JSON.stringify({ name: BULK_PLAN }),
    ]);
    await db.query('COMMIT');
  } catch (error) {
    await db.query('ROLLBACK');
    throw error;
  }
  return id;
}

async function insertKeys(db: Client, planId: string, count: number, owners: number, log: (line: string) => void): Promise<string[]> {
  const ids: string[] = [];
  const now = Date.now();
  const yearMs = 365 * 86_400_000;
  for (let done = 0; done < count; done += CHUNK) {
    const n = Math.min(CHUNK, count - done);
    const cols = { id: [] as string[], hash: [] as string[], start: [] as string[], name: [] as string[], owner: [] as string[], enabled: [] as boolean[], created: [] as string[], expires: [] as (string | null)[] };
    for (let i = 0; i < n; i++) {
      const issued = issueSecret();
      const id = newId('key');
      ids.push(id);
      cols.id.push(id);
      cols.hash.push(issued.hash);
      cols.start.push(issued.start);
      cols.name.push(randomKeyName());
      cols.owner.push(ownerId(randomInt(owners)));
      // Mostly enabled; created over the last year; a few expire within the next month.
      cols.enabled.push(randomInt(100) >= 3);
      cols.created.push(new Date(now - randomInt(yearMs)).toISOString());
      cols.expires.push(randomInt(100) < 5 ? new Date(now + randomInt(30 * 86_400_000)).toISOString() : null);
    }
    await db.query(
      `INSERT INTO "ApiKey" (id, hash, start, prefix, name, "planId", "ownerId", enabled, "expiresAt", meta, "createdAt", "updatedAt")
       SELECT t.id, t.hash, t.start, 'tg', t.name, $9, t.owner, t.enabled, t.expires, '{"seed":"large"}'::jsonb, t.created, t.created
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::boolean[], $7::timestamp[], $8::timestamp[])
              AS t(id, hash, start, name, owner, enabled, created, expires)`,
      [cols.id, cols.hash, cols.start, cols.name, cols.owner, cols.enabled, cols.created, cols.expires, planId],
    );
    log(`  keys: ${(done + n).toLocaleString('en-US')} / ${count.toLocaleString('en-US')}`);
  }
  return ids;
}

/**
 * A day of minute rollups for `keyIds`, generated in Postgres: each key is active in a share of
 * minutes (20-100 %, fixed per key), with 1-40 valid requests and the odd rate-limited or
 * over-quota one; then the hour and day rows that are their sums, and `lastUsedAt`.
 */
async function insertUsage(db: Client, keyIds: string[]): Promise<{ minute: number; hour: number; day: number }> {
  if (!keyIds.length) return { minute: 0, hour: 0, day: 0 };
  await db.query('BEGIN');
  try {
    await db.query('CREATE TEMP TABLE seed_active (id text PRIMARY KEY) ON COMMIT DROP');
    await db.query('INSERT INTO seed_active SELECT unnest($1::text[])', [keyIds]);
    // Rollups are UTC timestamps without a zone (Prisma's convention).
    const minute = await db.query(
      `WITH span AS (SELECT date_trunc('minute', now() AT TIME ZONE 'UTC') AS top),
            keys AS (SELECT k.id, k."ownerId", k."planId", 0.2 + 0.8 * ((hashtext(k.id) & 1023) / 1023.0) AS activity, 1 + (hashtext(k.id || 'rate') & 31) AS rate
                       FROM "ApiKey" k JOIN seed_active a ON a.id = k.id),
            -- One draw per key and minute, materialized: a WHERE on random() alone would be
            -- evaluated once per key (pushed down, or as a one-time filter), not once per minute.
            draws AS MATERIALIZED (
              SELECT k.*, m, random() AS draw
                FROM keys k, span, generate_series(span.top - interval '1439 minutes', span.top, interval '1 minute') AS m)
       INSERT INTO "UsageRollup" ("keyId", "ownerId", "planId", granularity, "bucketStart", valid, "rateLimited", "quotaExceeded", invalid, "updatedAt")
       SELECT d.id, d."ownerId", d."planId", 'minute', d.m, 1 + floor(random() * d.rate * 1.25)::bigint,
              CASE WHEN random() < 0.06 THEN 1 + floor(random() * 20)::bigint ELSE 0 END,
              CASE WHEN random() < 0.01 THEN 1 + floor(random() * 5)::bigint ELSE 0 END,
              0, now()
         FROM draws d
        WHERE d.draw < d.activity
       ON CONFLICT ("keyId", granularity, "bucketStart") DO NOTHING`,
    );
    const rollUp = (granularity: 'hour' | 'day') =>
      db.query(
        `INSERT INTO "UsageRollup" ("keyId", "ownerId", "planId", granularity, "bucketStart", valid, "rateLimited", "quotaExceeded", invalid, "updatedAt")
         SELECT r."keyId", r."ownerId", r."planId", '${granularity}', date_trunc('${granularity}', r."bucketStart"),
                sum(r.valid), sum(r."rateLimited"), sum(r."quotaExceeded"), sum(r.invalid), now()
           FROM "UsageRollup" r JOIN seed_active a ON a.id = r."keyId"
          WHERE r.granularity = 'minute'
          GROUP BY 1, 2, 3, 5
         ON CONFLICT ("keyId", granularity, "bucketStart") DO UPDATE
           SET valid = EXCLUDED.valid, "rateLimited" = EXCLUDED."rateLimited", "quotaExceeded" = EXCLUDED."quotaExceeded", invalid = EXCLUDED.invalid, "updatedAt" = now()`,
      );
    const hour = await rollUp('hour');
    const day = await rollUp('day');
    await db.query(
      `INSERT INTO "ApiKeyActivity" ("keyId", "lastUsedAt")
       SELECT r."keyId", max(r."bucketStart") + interval '59 seconds' FROM "UsageRollup" r JOIN seed_active a ON a.id = r."keyId"
        WHERE r.granularity = 'minute' GROUP BY 1
       ON CONFLICT ("keyId") DO UPDATE SET "lastUsedAt" = EXCLUDED."lastUsedAt"`,
    );
    await db.query('COMMIT');
    return { minute: minute.rowCount ?? 0, hour: hour.rowCount ?? 0, day: day.rowCount ?? 0 };
  } catch (error) {
    await db.query('ROLLBACK');
    throw error;
  }
}

export async function seedLarge(databaseUrl: string, options: SeedLargeOptions): Promise<SeedLargeResult> {
  const began = Date.now();
  const log = options.log ?? (() => undefined);
  const owners = options.owners ?? Math.max(1, Math.round(options.keys / 100));
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const planId = await ensurePlan(db);
    const existing = Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM "ApiKey" WHERE "planId" = $1 AND "deletedAt" IS NULL', [planId])).rows[0]!.n);
    if (existing >= options.keys) {
      throw new Error(`plan "${BULK_PLAN}" already has ${existing.toLocaleString('en-US')} keys (>= ${options.keys.toLocaleString('en-US')}): nothing to do. Ask for more with --keys, or use a fresh database.`);
    }
    const toCreate = options.keys - existing;
    log(`db:seed:large: plan "${BULK_PLAN}" (${planId}) has ${existing.toLocaleString('en-US')} keys; adding ${toCreate.toLocaleString('en-US')} over ${owners.toLocaleString('en-US')} owners`);
    const ids = await insertKeys(db, planId, toCreate, owners, log);

    const active = ids.slice(0, Math.min(options.active, ids.length));
    log(`  usage: a day of minute rollups for ${active.length.toLocaleString('en-US')} active keys, plus hour and day rows...`);
    const usageRows = await insertUsage(db, active);
    log(`  usage: ${usageRows.minute.toLocaleString('en-US')} minute, ${usageRows.hour.toLocaleString('en-US')} hour, ${usageRows.day.toLocaleString('en-US')} day rows`);
    await db.query('ANALYZE "ApiKey"');
    await db.query('ANALYZE "UsageRollup"');
    return { planId, keysCreated: toCreate, keysTotal: options.keys, owners, activeKeys: active.length, usageRows, durationMs: Date.now() - began };
  } finally {
    await db.end();
  }
}

export function parseSeedLargeArgs(argv: string[]): { keys: number; active: number } {
  const value = (flag: string, fallback: number): number => {
    const at = argv.indexOf(flag);
    if (at < 0) return fallback;
    const n = Number(argv[at + 1]);
    if (!Number.isInteger(n) || n < 1) throw new Error(`${flag} needs a positive whole number`);
    return n;
  };
  const keys = value('--keys', 100_000);
  return { keys, active: Math.min(keys, value('--active', 500)) };
}

if (require.main === module) {
  const started = Date.now();
  Promise.resolve()
    .then(() => seedLarge(process.env.DATABASE_URL || 'postgresql://postgres@127.0.0.1:5432/tollgate', { ...parseSeedLargeArgs(process.argv.slice(2)), log: (line) => console.log(line) }))
    .then((r) => console.log(`db:seed:large: done in ${((Date.now() - started) / 1000).toFixed(1)} s: ${r.keysCreated.toLocaleString('en-US')} keys created (no secrets printed: only hashes are stored)`))
    .catch((error: unknown) => {
      console.error(`db:seed:large: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
      process.exit(1);
    });
}
