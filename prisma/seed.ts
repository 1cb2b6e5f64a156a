// `npm run db:seed`: idempotent demo data. Creates, once, a "free" and a "pro" plan, a demo key
// on "free", and the bootstrap admin (TOLLGATE_ADMIN_EMAIL / TOLLGATE_ADMIN_PASSWORD, else
// admin@tollgate.local with a generated password). Secrets are printed only when created:
// only their hashes are stored, so a second run cannot show them again.
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '@prisma/client';
import { randomBytes } from 'node:crypto';
import { hashPassword } from '../apps/api/src/auth/password';
import { base58 } from '../apps/api/src/infra/base58';
import { newId } from '../apps/api/src/infra/ids';
import { issueSecret } from '../apps/api/src/keys/key-secret';

export const DEMO_KEY_NAME = 'Demo key';
export const DEFAULT_ADMIN_EMAIL = 'admin@tollgate.local';

export interface SeedResult {
  adminEmail: string;
  /** Set only when this run created the admin with a generated password. */
  adminPassword?: string;
  adminPasswordFromEnv: boolean;
  /** Set only when this run created the demo key. */
  demoKey?: string;
  demoKeyStart: string;
  demoKeyId: string;
}

const PLANS = [
  {
    name: 'free',
    description: 'Bursts of 10, 100 a minute sustained, 10,000 a month.',
    quota: { limit: 10_000n, period: 'month' as const, resetDay: 1 },
    limits: [
      { name: 'burst', algorithm: 'token_bucket' as const, limit: 10, windowMs: 1000n, burst: 10 },
      { name: 'sustained', algorithm: 'sliding_window' as const, limit: 100, windowMs: 60_000n, burst: null },
    ],
  },
  {
    name: 'pro',
    description: 'Bursts of 100, 5,000 a minute sustained, 1,000,000 a month.',
    quota: { limit: 1_000_000n, period: 'month' as const, resetDay: 1 },
    limits: [
      { name: 'burst', algorithm: 'token_bucket' as const, limit: 100, windowMs: 1000n, burst: 100 },
      { name: 'sustained', algorithm: 'sliding_window' as const, limit: 5000, windowMs: 60_000n, burst: null },
    ],
  },
];

export async function seed(databaseUrl: string, env: NodeJS.ProcessEnv = process.env): Promise<SeedResult> {
  const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: databaseUrl }) });
  try {
    for (const plan of PLANS) {
      const existing = await prisma.plan.findUnique({ where: { name: plan.name } });
      if (existing) continue;
      const created = await prisma.plan.create({
        data: {
          id: newId('plan'),
          name: plan.name,
          description: plan.description,
          quotaLimit: plan.quota.limit,
          quotaPeriod: plan.quota.period,
          quotaResetDay: plan.quota.resetDay,
          limits: { create: plan.limits.map((limit, position) => ({ id: newId('lim'), position, ...limit })) },
        },
      });
      // targetId is the plan's id, as for every audited change: the dashboard links it to the plan.
      await prisma.auditLog.create({ data: { id: newId('aud'), actor: 'system:seed', action: 'plan.create', targetType: 'plan', targetId: created.id, after: { id: created.id, name: plan.name } } });
    }

    const adminEmail = (env.TOLLGATE_ADMIN_EMAIL || DEFAULT_ADMIN_EMAIL).toLowerCase();
    const envPassword = env.TOLLGATE_ADMIN_PASSWORD || undefined;
    let adminPassword: string | undefined;
    const admin = await prisma.adminUser.findUnique({ where: { email: adminEmail } });
    if (!admin) {
      adminPassword = envPassword ?? base58(randomBytes(12));
      await prisma.adminUser.create({ data: { id: newId('usr'), email: adminEmail, passwordHash: await hashPassword(adminPassword), role: 'admin' } });
    }

    const free = await prisma.plan.findUniqueOrThrow({ where: { name: 'free' } });
    let demo = await prisma.apiKey.findFirst({ where: { name: DEMO_KEY_NAME, deletedAt: null }, orderBy: { createdAt: 'asc' } });
    let demoKey: string | undefined;
    if (!demo) {
      const issued = issueSecret();
      demoKey = issued.secret;
      demo = await prisma.apiKey.create({
        data: { id: newId('key'), hash: issued.hash, start: issued.start, prefix: 'tg', name: DEMO_KEY_NAME, planId: free.id, ownerId: 'demo-customer', meta: { seeded: true } },
      });
      // Every write is in the audit log, the seed's too (no secret: only what the key page shows).
      await prisma.auditLog.create({
        data: { id: newId('aud'), actor: 'system:seed', action: 'key.create', targetType: 'key', targetId: demo.id, after: { id: demo.id, name: demo.name, planId: demo.planId, ownerId: demo.ownerId, start: demo.start } },
      });
    }
    return {
      adminEmail,
      adminPassword: envPassword ? undefined : adminPassword,
      adminPasswordFromEnv: Boolean(envPassword),
      demoKey,
      demoKeyStart: demo.start,
      demoKeyId: demo.id,
    };
  } finally {
    await prisma.$disconnect();
  }
}

export function describeSeed(result: SeedResult): string[] {
  const lines = [`Admin login: ${result.adminEmail}`];
  if (result.adminPassword) lines.push(`Admin password: ${result.adminPassword}   (shown once; set TOLLGATE_ADMIN_PASSWORD to choose your own)`);
  else if (result.adminPasswordFromEnv) lines.push('Admin password: the one in TOLLGATE_ADMIN_PASSWORD');
  else lines.push('Admin password: shown when it was first created (set TOLLGATE_ADMIN_PASSWORD and re-seed a new email to get a fresh admin)');
  if (result.demoKey) lines.push(`Demo key: ${result.demoKey}   (shown once; only its hash is stored)`);
  else lines.push(`Demo key: ${result.demoKeyStart}... (id ${result.demoKeyId}; its secret was shown when it was created; rotate it from the dashboard for a new one)`);
  return lines;
}

if (require.main === module) {
  seed(process.env.DATABASE_URL || 'postgresql://postgres@127.0.0.1:5432/tollgate')
    .then((result) => console.log(describeSeed(result).join('\n')))
    .catch((error: unknown) => {
      console.error(`db:seed: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
      process.exit(1);
    });
}
