import { isIP } from 'node:net';
import { z } from 'zod';

const port = z.coerce.number().int().min(0).max(65535);

/** proxy-addr's names for address ranges (uniquelocal: 10/8, 172.16/12, 192.168/16, fc00::/7). */
const PROXY_PRESETS = ['loopback', 'linklocal', 'uniquelocal'];

/** An address, a CIDR range (`10.0.0.0/8`, `fd00::/8`) or a preset name. */
function isProxyEntry(entry: string): boolean {
  if (PROXY_PRESETS.includes(entry)) return true;
  const [address, bits, extra] = entry.split('/');
  const family = isIP(address);
  if (!family || extra !== undefined) return false;
  return bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128));
}

/**
 * Which peers may tell the client's address in X-Forwarded-For (the per-IP login limit counts it):
 * a comma-separated list of addresses, CIDR ranges and presets, or `none` to count the socket's
 * peer only. The default trusts loopback and private ranges, where a reverse proxy usually sits;
 * a deployment whose clients can reach the API from a private network should name its proxy.
 */
const trustProxy = z
  .string()
  .default(PROXY_PRESETS.join(','))
  .transform((value) => (value.trim() === 'none' ? [] : value.split(',').map((entry) => entry.trim())))
  .refine((entries) => entries.every(isProxyEntry), {
    message: `must be none, or a comma-separated list of addresses, CIDR ranges and ${PROXY_PRESETS.join('/')}`,
  });

/** Every environment variable the API reads, with the contract's defaults. Parsed once, at boot. */
export const EnvSchema = z.object({
  DATABASE_URL: z.string().url().default('postgresql://postgres@127.0.0.1:5432/tollgate'),
  REDIS_URL: z.string().url().default('redis://127.0.0.1:6379'),
  REDIS_KEY_PREFIX: z.string().max(32).default('tg:'),
  HOST: z.string().default('0.0.0.0'),
  PORT: port.default(3000),
  DASHBOARD_PORT: port.default(3001),
  API_URL: z.string().url().default('http://127.0.0.1:3000'),
  TOLLGATE_ROOT_KEY: z.string().regex(/^tgr_[1-9A-HJ-NP-Za-km-z]{16,64}$/, 'must look like tgr_<base58>').optional(),
  TOLLGATE_ADMIN_EMAIL: z.email().optional(),
  TOLLGATE_ADMIN_PASSWORD: z.string().min(8, 'must be at least 8 characters').optional(),
  /** Deadline of one rate-limit store call; past it the plan's failMode decides. */
  TOLLGATE_STORE_TIMEOUT_MS: z.coerce.number().int().min(1).max(10_000).default(50),
  USAGE_FLUSH_MS: z.coerce.number().int().min(100).max(3_600_000).default(5000),
  /**
   * Days minute rollups are kept (pruned hourly). At least 1: the minute series of /v1/usage and
   * /v1/usage/top reach back a day. At most 90: each day of minute rows is ~1440 rows per active key.
   */
  USAGE_RETENTION_MINUTE_DAYS: z.coerce.number().int().min(1).max(90).default(7),
  /** Days hour rollups are kept (pruned hourly; day rollups are kept forever). 1..3650, and not shorter than the minute retention. */
  USAGE_RETENTION_HOUR_DAYS: z.coerce.number().int().min(1).max(3650).default(90),
  /** How often due webhook deliveries are sent. */
  WEBHOOK_POLL_MS: z.coerce.number().int().min(10).max(60_000).default(1000),
  /** First retry delay of a failed delivery; it doubles per attempt (capped at 1 h) for 24 h. */
  WEBHOOK_RETRY_BASE_MS: z.coerce.number().int().min(10).max(3_600_000).default(10_000),
  /** How often keys close to expiry are looked for (key.expiring). */
  WEBHOOK_SCAN_MS: z.coerce.number().int().min(100).max(3_600_000).default(60_000),
  TRUST_PROXY: trustProxy,
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  NODE_ENV: z.string().default('production'),
}).superRefine((env, ctx) => {
  if (env.USAGE_RETENTION_HOUR_DAYS < env.USAGE_RETENTION_MINUTE_DAYS) {
    ctx.addIssue({ code: 'custom', path: ['USAGE_RETENTION_HOUR_DAYS'], message: `must be at least USAGE_RETENTION_MINUTE_DAYS (${env.USAGE_RETENTION_MINUTE_DAYS})` });
  }
});
export type Env = z.infer<typeof EnvSchema>;

export class EnvError extends Error {}

/** Parses the environment or throws one readable line naming each bad variable. */
export function parseEnv(source: NodeJS.ProcessEnv = process.env): Env {
  // An empty variable means "not set", as in most .env tooling.
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, value]) => value !== ''));
  const result = EnvSchema.safeParse(cleaned);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
    throw new EnvError(`Invalid environment: ${problems}`);
  }
  return result.data;
}

/** The URL with any password masked, safe to print. */
export function redactUrl(raw: string): string {
  try {
    const url = new URL(raw);
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return '(unparseable URL)';
  }
}
