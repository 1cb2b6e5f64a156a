// The dashboard end to end: a real API and database, the production build of the dashboard,
// headless Chromium. Screenshots of every page go to test-output/screenshots/.
import { Client } from 'pg';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PHONE, startBrowserHarness, type BrowserHarness } from '../support/browser';

describe('dashboard in a browser', () => {
  let h: BrowserHarness;
  let page: Page;
  let secret = '';
  let keyId = '';
  let verifyAvailable = false;
  let usageAvailable = false;

  /** POST /v1/keys/verify; a 503 (Redis slower than 50 ms on a loaded machine) is retried, as a client would. */
  const verify = async (key: string): Promise<{ valid: boolean; code: string }> => {
    for (let attempt = 0; ; attempt++) {
      const res = await h.admin.call('POST', '/v1/keys/verify', { key });
      if (res.status !== 503 || attempt === 4) return res.status === 200 ? res.body : { valid: false, code: `HTTP ${res.status}` };
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  beforeAll(async () => {
    h = await startBrowserHarness();
    page = (await h.newPage()).page;
  });

  afterAll(async () => {
    await h?.close();
  });

  it('sends a visitor without a session to the login page, then back where they were going', async () => {
    await page.goto('/keys');
    expect(new URL(page.url()).pathname + new URL(page.url()).search).toBe('/login?next=%2Fkeys');
    await h.screenshot(page, 'login');

    await page.getByLabel('Email').fill(h.admin.adminEmail);
    await page.getByLabel('Password').fill('wrong password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.locator('#login-error').textContent()).toMatch(/invalid/i);

    await page.getByLabel('Password').fill(h.admin.adminPassword);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/keys');
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    await page.getByText('No keys yet').waitFor();
  });

  it('creates a plan with burst and sustained limits and a quota', async () => {
    await page.goto('/plans');
    await page.getByText('No plans yet').waitFor();
    await page.getByRole('link', { name: 'New plan' }).first().click();
    await page.waitForURL('**/plans/new');

    await page.locator('#plan-name').fill('Starter');
    await page.getByRole('button', { name: '+ Add limit' }).click();
    await page.locator('#plan-limit-0-limit').fill('100');
    await page.getByRole('button', { name: '+ Add limit' }).click();
    await page.locator('#plan-limit-1-algorithm').selectOption('sliding_window');
    await page.locator('#plan-limit-1-limit').fill('1000');
    await page.getByTestId('limit-sustained').getByLabel('Window unit').selectOption('min');
    await page.getByLabel('Limit the number of valid requests per day or month').check();
    await page.locator('#quota-limit').fill('50000');
    await h.screenshot(page, 'plan-new');
    await page.getByRole('button', { name: 'Create plan' }).click();

    await page.waitForURL(/\/plans\/plan_/);
    await page.getByText('Plan created.').waitFor();
    expect(await page.getByTestId('plan-impact').textContent()).toContain('0 keys use this plan');
    await h.screenshot(page, 'plan-edit');

    const plans = (await h.admin.call('GET', '/v1/plans')).body.items;
    expect(plans).toHaveLength(1);
    expect(plans[0].limits.map((l: { name: string; limit: number; windowMs: number }) => [l.name, l.limit, l.windowMs])).toEqual([
      ['burst', 100, 1000],
      ['sustained', 1000, 60_000],
    ]);
    expect(plans[0].quota).toEqual({ limit: 50000, period: 'month', resetDay: 1 });
  });

  it('shows the API problem detail when a save is refused', async () => {
    await page.goto('/plans/new');
    await page.locator('#plan-name').fill('Starter');
    await page.getByRole('button', { name: 'Create plan' }).click();
    // Duplicate name: the API's problem detail is shown, never a blank page.
    await expect.poll(() => page.locator('main .alert').first().textContent()).toMatch(/\S/);
    await h.screenshot(page, 'plan-error');
  });

  it('issues a key and shows its secret once, with a copy button', async () => {
    await page.goto('/keys');
    await page.getByRole('button', { name: 'New key' }).click();
    await page.locator('#key-name').fill('Acme production');
    await page.locator('#key-plan').selectOption({ label: 'Starter' });
    await page.locator('#key-owner').fill('acme');
    // A field error from the API lands next to its input.
    await page.locator('#key-expires').fill('2020-01-01T00:00');
    await page.getByRole('button', { name: 'Create key' }).click();
    await expect.poll(() => page.locator('#key-expires-error').textContent()).toContain('must be in the future');
    expect(await page.locator('#key-expires').getAttribute('aria-invalid')).toBe('true');
    await h.screenshot(page, 'key-field-error');
    await page.locator('#key-expires').fill('');
    await page.getByRole('button', { name: 'Create key' }).click();

    const secretBox = page.getByTestId('key-secret');
    await secretBox.waitFor();
    secret = (await secretBox.textContent())!.trim();
    expect(secret).toMatch(/^tg_[1-9A-HJ-NP-Za-km-z]+$/);
    await page.getByText('it will not be shown again').waitFor();
    await page.getByRole('button', { name: 'Copy' }).waitFor();
    await h.screenshot(page, 'key-secret');

    await page.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('link', { name: 'Acme production' }).waitFor();
    expect(await page.getByTestId('key-secret').count()).toBe(0);
    await h.screenshot(page, 'keys');

    // Server-side search and filters.
    await page.locator('#filter-q').fill('nothing-like-this');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByText('No keys match these filters').waitFor();
    await page.locator('#filter-q').fill('acme');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByRole('link', { name: 'Acme production' }).click();
    await page.waitForURL(/\/keys\/key_/);
    keyId = new URL(page.url()).pathname.split('/').pop()!;

    // Only a route that does not exist yet skips the traffic checks; any other failure fails.
    const probe = await h.admin.call('POST', '/v1/keys/verify', { key: 'tg_probe' });
    verifyAvailable = probe.status !== 404;
    if (verifyAvailable) expect((await verify(secret)).code).toBe('VALID');
    else console.warn('[browser] POST /v1/keys/verify is not served: traffic checks are skipped');
    const usage = await h.admin.call('GET', `/v1/usage?keyId=${keyId}&granularity=minute&from=${new Date(Date.now() - 3_600_000).toISOString()}`);
    usageAvailable = usage.status !== 404;
    if (usageAvailable) expect(usage.status).toBe(200);
    else console.warn('[browser] GET /v1/usage is not served: chart checks are skipped');
  });

  it('key detail: traffic shows in the chart, and a tightened limit rejects within a second', async () => {
    await page.getByRole('heading', { name: 'Acme production' }).waitFor();
    await page.getByTestId('effective-burst').waitFor();
    expect(await page.getByTestId('effective-burst').textContent()).toContain('100 per 1 s');

    if (verifyAvailable) {
      for (let i = 0; i < 20; i++) expect((await verify(secret)).code).toBe('VALID');
      if (usageAvailable) {
        await expect
          .poll(async () => Number(((await page.getByTestId('usage-valid').first().textContent()) ?? '0').replace(/\D/g, '')), { timeout: 15_000, interval: 500 })
          .toBeGreaterThanOrEqual(20);
      }
    }
    await h.screenshot(page, 'key-detail');

    await page.getByRole('button', { name: 'Override “burst”' }).click();
    await page.locator('#override-0-limit').fill('2');
    await page.getByTestId('limit-burst').getByLabel('Window unit').selectOption('min');
    await page.getByRole('button', { name: 'Save limits' }).click();
    await page.getByText('Saved. In effect within a second').waitFor();
    const savedAt = Date.now();
    await expect.poll(() => page.getByTestId('effective-burst').textContent()).toContain('2 per 1 min');

    const key = (await h.admin.call('GET', `/v1/keys/${keyId}`)).body;
    expect(key.limits).toEqual([expect.objectContaining({ name: 'burst', algorithm: 'token_bucket', limit: 2, windowMs: 60_000 })]);

    if (verifyAvailable) {
      const codes: string[] = [];
      while (Date.now() - savedAt < 1000 && !codes.includes('RATE_LIMITED')) codes.push((await verify(secret)).code);
      expect(codes).toContain('RATE_LIMITED');
      expect(codes.filter((c) => c === 'VALID').length).toBeLessThanOrEqual(2);
    }
    await h.screenshot(page, 'key-limits-saved');

    if (verifyAvailable && usageAvailable) {
      // Live mode: the SSE stream through the dashboard's /api proxy, counted per second.
      await page.getByRole('button', { name: 'Live' }).click();
      await page.getByText('live', { exact: true }).waitFor();
      await expect
        .poll(
          async () => {
            await verify(secret);
            return Number(((await page.getByTestId('usage-total').first().textContent()) ?? '0').replace(/\D/g, ''));
          },
          { timeout: 10_000, interval: 500 },
        )
        .toBeGreaterThan(0);
      await h.screenshot(page, 'key-live');
      await page.getByRole('button', { name: 'Stop live' }).click();
    }

    // The change is in the key's audit trail on the same page.
    await page.reload();
    await page.getByRole('heading', { name: 'Recent changes' }).waitFor();
    expect(await page.getByText('key.update').count()).toBeGreaterThan(0);
  });

  it('refuses to delete a plan that keys use, showing the reason', async () => {
    await page.goto('/plans');
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('button', { name: 'Delete plan' }).click();
    const alert = page.getByRole('dialog').getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/key/i);
    await h.screenshot(page, 'plan-delete-refused');
    await page.getByRole('button', { name: 'Cancel' }).click();
    expect((await h.admin.call('GET', '/v1/plans')).body.items).toHaveLength(1);
  });

  it('shows the audit log and the overview', async () => {
    await page.goto('/audit');
    await page.getByRole('heading', { name: 'Audit log' }).waitFor();
    expect(await page.getByText('plan.create').count()).toBe(1);
    expect(await page.getByText('key.create').count()).toBe(1);
    await h.screenshot(page, 'audit');

    await page.goto('/');
    await page.getByRole('heading', { name: 'Requests over time' }).waitFor();
    // Either numbers or a clear "not available" state: never a blank page or a spinner forever.
    await page.locator('[data-testid=usage-summary], .state__title').first().waitFor();
    await page.getByRole('heading', { name: 'Top keys' }).waitFor();
    await h.screenshot(page, 'overview');
  });

  it('webhooks: creates one and shows its signing secret once, lists deliveries, deletes with confirmation', async () => {
    await page.goto('/webhooks');
    await page.getByRole('heading', { name: 'Webhooks' }).waitFor();
    await page.getByText('No webhooks yet').waitFor();

    await page.getByRole('button', { name: 'New webhook' }).click();
    await page.locator('#webhook-url').fill('https://hooks.example.test/tollgate');
    expect(await page.locator('#webhook-thresholds').inputValue()).toBe('80, 90, 100');
    await page.getByLabel(/Rate limit exceeded/).check();
    await page.locator('#webhook-thresholds').fill('50, 100');
    await page.getByRole('button', { name: 'Create webhook' }).click();

    const secretBox = page.getByTestId('webhook-secret');
    await secretBox.waitFor();
    const signingSecret = (await secretBox.textContent())!.trim();
    expect(signingSecret).toMatch(/^whsec_\w+$/);
    await page.getByText('it will not be shown again').waitFor();
    await page.getByRole('button', { name: 'Copy' }).waitFor();
    await h.screenshot(page, 'webhook-secret');
    await page.getByRole('button', { name: 'Done' }).click();

    const created = page.getByRole('region', { name: 'Webhook https://hooks.example.test/tollgate' });
    await created.waitFor();
    expect(await page.getByTestId('webhook-secret').count()).toBe(0);
    expect(await created.textContent()).toContain('50 %, 100 %');
    await created.getByText('No deliveries yet').waitFor();
    const listed = (await h.admin.call('GET', '/v1/webhooks')).body.items;
    expect(listed).toEqual([expect.objectContaining({ url: 'https://hooks.example.test/tollgate', events: ['quota.threshold', 'ratelimit.exceeded'], thresholds: [50, 100] })]);
    expect(JSON.stringify(listed)).not.toContain(signingSecret);

    // A second webhook (kept for the viewer and phone checks) with one delivery in each state.
    const kept = await h.admin.call('POST', '/v1/webhooks', { url: 'https://ops.example.test/tollgate-events', events: ['ratelimit.exceeded'] });
    expect(kept.status).toBe(201);
    const client = new Client({ connectionString: h.admin.db.url });
    await client.connect();
    try {
      await client.query(
        `INSERT INTO "WebhookDelivery" (id, "webhookId", event, "dedupeKey", payload, status, attempts, "nextAttemptAt", "lastStatusCode", "lastError", "createdAt", "deliveredAt") VALUES
          ('whd_browser_ok', $1, 'ratelimit.exceeded', 'browser-ok', '{}', 'succeeded', 1, now(), 200, NULL, now() - interval '3 minutes', now() - interval '3 minutes'),
          ('whd_browser_failed', $1, 'ratelimit.exceeded', 'browser-failed', '{}', 'failed', 8, now(), 500, 'HTTP 500 from the endpoint', now() - interval '2 minutes', NULL),
          ('whd_browser_pending', $1, 'ratelimit.exceeded', 'browser-pending', '{}', 'pending', 2, now() + interval '1 hour', NULL, 'connect ECONNREFUSED', now() - interval '1 minute', NULL)`,
        [kept.body.id],
      );
    } finally {
      await client.end();
    }
    await page.reload();
    const keptCard = page.getByRole('region', { name: 'Webhook https://ops.example.test/tollgate-events' });
    await keptCard.getByTestId('webhook-deliveries').waitFor();
    expect(await keptCard.getByTestId('delivery-status').allTextContents()).toEqual(['pending', 'failed', 'succeeded']);
    expect(await keptCard.textContent()).toContain('HTTP 500 from the endpoint');
    await h.screenshot(page, 'webhooks');

    await created.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete webhook' }).click();
    await created.waitFor({ state: 'detached' });
    expect((await h.admin.call('GET', '/v1/webhooks')).body.items.map((w: { url: string }) => w.url)).toEqual(['https://ops.example.test/tollgate-events']);
  });

  it('a viewer sees everything and no write control', async () => {
    await h.createUser('viewer@example.test', 'viewer password 123', 'viewer');
    const { context, page: viewer } = await h.newPage();
    await h.login(viewer, 'viewer@example.test', 'viewer password 123');
    await viewer.getByText('viewer · read-only').waitFor();

    await viewer.goto('/keys');
    await viewer.getByRole('link', { name: 'Acme production' }).waitFor();
    for (const name of ['New key', 'Disable', 'Rotate', 'Revoke']) expect(await viewer.getByRole('button', { name }).count()).toBe(0);
    await h.screenshot(viewer, 'viewer-keys');

    await viewer.goto(`/keys/${keyId}`);
    await viewer.getByTestId('effective-burst').waitFor();
    expect(await viewer.getByRole('button', { name: 'Save limits' }).count()).toBe(0);
    expect(await viewer.locator('input:not([type=search])').count()).toBe(0);

    await viewer.goto('/plans');
    await viewer.getByRole('link', { name: 'Starter' }).click();
    await viewer.waitForURL(/\/plans\/plan_/);
    await viewer.getByRole('heading', { name: 'Rate limits' }).waitFor();
    for (const name of ['Save plan', 'Delete']) expect(await viewer.getByRole('button', { name }).count()).toBe(0);
    expect(await viewer.getByRole('link', { name: 'New plan' }).count()).toBe(0);
    await h.screenshot(viewer, 'viewer-plan');

    await viewer.goto('/webhooks');
    await viewer.getByRole('region', { name: 'Webhook https://ops.example.test/tollgate-events' }).getByTestId('webhook-deliveries').waitFor();
    for (const name of ['New webhook', 'Delete']) expect(await viewer.getByRole('button', { name }).count()).toBe(0);
    await h.screenshot(viewer, 'viewer-webhooks');
    await context.close();
  });

  it('disables and enables a key, and rotates it with a grace period', async () => {
    await page.goto(`/keys/${keyId}`);
    await page.getByTestId('effective-burst').waitFor();
    const actions = page.locator('main .page-header');
    await actions.getByRole('button', { name: 'Disable' }).click();
    await actions.getByRole('button', { name: 'Enable' }).waitFor();
    await page.locator('main .page-header').getByText('disabled', { exact: true }).waitFor();
    expect((await h.admin.call('GET', `/v1/keys/${keyId}`)).body.enabled).toBe(false);
    if (verifyAvailable) expect((await verify(secret)).code).toBe('DISABLED');
    await actions.getByRole('button', { name: 'Enable' }).click();
    await actions.getByRole('button', { name: 'Disable' }).waitFor();
    expect((await h.admin.call('GET', `/v1/keys/${keyId}`)).body.enabled).toBe(true);

    await actions.getByRole('button', { name: 'Rotate' }).click();
    await page.locator('#rotate-grace').selectOption({ label: '1 hour' });
    const before = Date.now();
    await page.getByRole('button', { name: 'Rotate key' }).click();
    const newSecret = (await page.getByTestId('key-secret').textContent())!.trim();
    expect(newSecret).toMatch(/^tg_/);
    expect(newSecret).not.toBe(secret);
    await page.getByText('The old key keeps working until').waitFor();
    await h.screenshot(page, 'key-rotated');
    await page.getByRole('link', { name: 'Open the new key' }).click();
    await page.waitForURL((url) => /\/keys\/key_/.test(url.pathname) && !url.pathname.endsWith(keyId));
    const newKeyId = new URL(page.url()).pathname.split('/').pop()!;
    await page.getByTestId('effective-burst').waitFor();

    const oldKey = (await h.admin.call('GET', `/v1/keys/${keyId}`)).body;
    const graceEnds = new Date(oldKey.expiresAt).getTime();
    expect(graceEnds).toBeGreaterThanOrEqual(before + 3_600_000 - 1000);
    expect(graceEnds).toBeLessThanOrEqual(Date.now() + 3_600_000 + 1000);
    const newKey = (await h.admin.call('GET', `/v1/keys/${newKeyId}`)).body;
    expect(newKey).toEqual(expect.objectContaining({ name: 'Acme production', planId: oldKey.planId, ownerId: 'acme', enabled: true, expiresAt: null }));
    expect(newKey.limits).toEqual(oldKey.limits);
    if (verifyAvailable) {
      // Both secrets are accepted during the grace period (the tight burst limit may answer RATE_LIMITED).
      expect(['VALID', 'RATE_LIMITED']).toContain((await verify(secret)).code);
      expect(['VALID', 'RATE_LIMITED']).toContain((await verify(newSecret)).code);
    }
  });

  it('sends an expired session back to login from a client-side call, returning to the page', async () => {
    await page.goto(`/keys/${keyId}`);
    await page.getByTestId('effective-burst').waitFor();
    await h.expireSessions();
    // Changing the range fetches usage from the browser; the page's own 5 s refresh may get there first.
    await Promise.all([
      page.waitForURL((url) => url.pathname === '/login'),
      page.getByRole('button', { name: '24h' }).click({ timeout: 3000 }).catch(() => undefined),
    ]);
    expect(new URL(page.url()).searchParams.get('next')).toBe(`/keys/${keyId}`);
    await page.getByLabel('Email').fill(h.admin.adminEmail);
    await page.getByLabel('Password').fill(h.admin.adminPassword);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`**/keys/${keyId}`);
    await page.getByTestId('effective-burst').waitFor();
  });

  it('fits a phone screen', async () => {
    const { context, page: phone } = await h.newPage(PHONE);
    await h.login(phone, h.admin.adminEmail, h.admin.adminPassword);
    for (const [path, name] of [
      ['/', 'phone-overview'],
      ['/keys', 'phone-keys'],
      [`/keys/${keyId}`, 'phone-key-detail'],
      ['/plans', 'phone-plans'],
      ['/webhooks', 'phone-webhooks'],
    ] as const) {
      await phone.goto(path);
      await phone.locator('main h1').waitFor();
      if (path === '/webhooks') await phone.getByTestId('webhook-deliveries').waitFor();
      // The widest elements that stick out on the right, named in the failure message.
      const sticking = (await phone.evaluate(`[...document.querySelectorAll('body *')]
        .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 1)
        .slice(0, 5).map((el) => el.tagName.toLowerCase() + '.' + el.className + ' ' + Math.round(el.getBoundingClientRect().right))`)) as string[];
      const overflow = Number(await phone.evaluate('document.documentElement.scrollWidth - window.innerWidth'));
      expect(overflow, `${path} scrolls sideways by ${overflow}px: ${sticking.join(', ')}`).toBeLessThanOrEqual(0);
      await h.screenshot(phone, name);
    }
    await context.close();
  });
});
