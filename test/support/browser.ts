// Browser-test harness: the real API in-process on a fresh database, the production build of the
// dashboard as a child process pointed at it, and headless Chromium driven by playwright-core.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { Client } from 'pg';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { Role } from '@tollgate/contracts';
import { AuthRepository } from '../../apps/api/src/auth/auth.repository';
import { hashPassword } from '../../apps/api/src/auth/password';
import { startAdminHarness, type AdminHarness } from './admin';

const ROOT = path.resolve(__dirname, '../..');
const DASHBOARD = path.join(ROOT, 'apps/dashboard');
const NEXT_BIN = path.join(ROOT, 'node_modules/next/dist/bin/next');
export const SCREENSHOT_DIR = path.join(ROOT, 'test-output/screenshots');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const DESKTOP = { width: 1280, height: 900 };
export const PHONE = { width: 390, height: 844 };

export interface BrowserHarness {
  admin: AdminHarness;
  dashboardUrl: string;
  browser: Browser;
  /** A fresh cookie jar and page at the given viewport. */
  newPage(viewport?: { width: number; height: number }): Promise<{ context: BrowserContext; page: Page }>;
  /** Signs in through the login form and waits for the overview. */
  login(page: Page, email: string, password: string): Promise<void>;
  /** Another dashboard user, straight through the API's repository. */
  createUser(email: string, password: string, role: Role): Promise<void>;
  /** Ends every dashboard session, as if they had all expired. */
  expireSessions(): Promise<void>;
  screenshot(page: Page, name: string): Promise<string>;
  close(): Promise<void>;
}

/** Newest modification time under `dir`, skipping build output. */
function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (['.next', 'node_modules', 'tsconfig.tsbuildinfo', 'next-env.d.ts'].includes(entry.name)) continue;
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : statSync(full).mtimeMs);
  }
  return newest;
}

/** Builds the dashboard unless `.next/BUILD_ID` is newer than every source file it depends on. */
export function ensureDashboardBuild(): void {
  const buildId = path.join(DASHBOARD, '.next/BUILD_ID');
  const sources = Math.max(newestMtime(DASHBOARD), newestMtime(path.join(ROOT, 'libs/contracts/src')));
  if (existsSync(buildId) && statSync(buildId).mtimeMs > sources) return;
  const result = spawnSync(process.execPath, [NEXT_BIN, 'build'], { cwd: DASHBOARD, env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' }, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`next build failed:\n${result.stdout}\n${result.stderr}`);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

async function startDashboard(apiUrl: string): Promise<{ url: string; child: ChildProcess; output: () => string }> {
  const port = await freePort();
  const child = spawn(process.execPath, [NEXT_BIN, 'start', '-p', String(port), '-H', '127.0.0.1'], {
    cwd: DASHBOARD,
    env: { ...process.env, API_URL: apiUrl, NEXT_TELEMETRY_DISABLED: '1', NODE_ENV: 'production' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout?.on('data', (chunk) => (log += chunk));
  child.stderr?.on('data', (chunk) => (log += chunk));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`next start exited with ${child.exitCode}:\n${log}`);
    try {
      const res = await fetch(`${url}/login`);
      if (res.ok) return { url, child, output: () => log };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  child.kill('SIGKILL');
  throw new Error(`the dashboard did not answer /login within 30 s:\n${log}`);
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

export async function startBrowserHarness(): Promise<BrowserHarness> {
  ensureDashboardBuild();
  // Flush usage often so the charts move within the test's patience.
  const admin = await startAdminHarness({ USAGE_FLUSH_MS: '500' });
  let dashboard: Awaited<ReturnType<typeof startDashboard>> | undefined;
  let browser: Browser | undefined;
  try {
    dashboard = await startDashboard(admin.api.url);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-quic', '--no-first-run', '--disable-sync'],
    });
  } catch (error) {
    if (dashboard) await stop(dashboard.child);
    await admin.close();
    throw error;
  }
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const dashboardUrl = dashboard.url;
  const openBrowser = browser;
  const child = dashboard.child;

  return {
    admin,
    dashboardUrl,
    browser: openBrowser,
    async newPage(viewport = DESKTOP) {
      // Not UTC, on purpose: the dashboard shows and reads every time in UTC, whatever the browser's zone.
      const context = await openBrowser.newContext({ viewport, baseURL: dashboardUrl, colorScheme: 'light', timezoneId: 'America/Los_Angeles' });
      context.setDefaultTimeout(10_000);
      return { context, page: await context.newPage() };
    },
    async login(page, email, password) {
      await page.goto('/login');
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill(password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL((url) => url.pathname !== '/login');
    },
    async createUser(email, password, role) {
      await admin.api.app.get(AuthRepository).createUser(email, await hashPassword(password), role);
    },
    async expireSessions() {
      const client = new Client({ connectionString: admin.db.url });
      await client.connect();
      try {
        await client.query('UPDATE "AdminSession" SET "expiresAt" = now() - interval \'1 second\'');
      } finally {
        await client.end();
      }
    },
    async screenshot(page, name) {
      const file = path.join(SCREENSHOT_DIR, `${name}.png`);
      // From the top, so the sticky header is not painted over the middle of a full-page shot.
      await page.evaluate('window.scrollTo(0, 0)');
      await page.screenshot({ path: file, fullPage: true });
      return file;
    },
    async close() {
      await openBrowser.close().catch(() => undefined);
      await stop(child);
      await admin.close();
    },
  };
}
