import { issueSecret, ROOT_KEY_PREFIX } from '../../apps/api/src/keys/key-secret';
import { startTestApp, type TestApp } from './app';
import { createTestDatabase, type TestDatabase } from './database';
import { http } from './http';

export interface AdminHarness {
  db: TestDatabase;
  api: TestApp;
  rootKey: string;
  adminEmail: string;
  adminPassword: string;
  /** JSON request with the root key. */
  call(method: string, path: string, json?: unknown, headers?: Record<string, string>): ReturnType<typeof http>;
  close(): Promise<void>;
}

/** A fresh database, the real API on it, a root key and a bootstrap admin from the env. */
export async function startAdminHarness(overrides: Record<string, string> = {}): Promise<AdminHarness> {
  const db = await createTestDatabase();
  const rootKey = issueSecret(ROOT_KEY_PREFIX).secret;
  const adminEmail = 'admin@example.test';
  const adminPassword = 'correct horse battery staple';
  const api = await startTestApp(db.url, { TOLLGATE_ROOT_KEY: rootKey, TOLLGATE_ADMIN_EMAIL: adminEmail, TOLLGATE_ADMIN_PASSWORD: adminPassword, ...overrides });
  return {
    db,
    api,
    rootKey,
    adminEmail,
    adminPassword,
    call: (method, path, json, headers) => http(`${api.url}${path}`, { method, json, token: rootKey, headers }),
    close: async () => {
      await api.close();
      await db.drop();
    },
  };
}

export const burstLimit = { name: 'burst', algorithm: 'token_bucket', limit: 5, windowMs: 1000, burst: 5 } as const;
export const sustainedLimit = { name: 'sustained', algorithm: 'sliding_window', limit: 100, windowMs: 60_000 } as const;
