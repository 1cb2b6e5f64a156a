// The dashboard end to end: a real API and database, the production build of the dashboard,
// headless Chromium. Screenshots of every page go to test-output/screenshots/.
import { Client } from 'pg';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiProcesses, type ApiProcesses } from '../support/api-process';
import { PHONE, startBrowserHarness, type BrowserHarness } from '../support/browser';

describe('dashboard in a browser', () => {
  let h: BrowserHarness;
  /** A second API instance (a real process) on the same database and Redis prefix as the in-process one. */
  let second: ApiProcesses | undefined;
  let context: BrowserContext;
  let page: Page;
  let secret = '';
  let keyId = '';
  /** Requests sent with the key so far (verify and the guarded echo route): the overview must count at least these. */
  let sent = 0;
  /** The successor issued by the rotation test (revoked by the next one). */
  let rotatedKeyId = '';
  let rotatedSecret = '';

  /** POST /v1/keys/verify; a 503 (Redis slower than 50 ms on a loaded machine) is retried, as a client would. */
  const verify = async (key: string): Promise<{ valid: boolean; code: string }> => {
    for (let attempt = 0; ; attempt++) {
      const res = await h.admin.call('POST', '/v1/keys/verify', { key });
      if (res.status !== 503 || attempt === 4) {
        if (res.status === 200) sent++;
        return res.status === 200 ? res.body : { valid: false, code: `HTTP ${res.status}` };
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  /** GET /v1/demo/echo on `base` with the key in X-API-Key: the HTTP status. */
  const echo = async (base: string, key: string): Promise<number> => {
    const res = await fetch(`${base}/v1/demo/echo`, { headers: { 'x-api-key': key } });
    await res.arrayBuffer();
    if (res.status !== 503) sent++;
    return res.status;
  };

  /** A number shown on the page ("1,234" -> 1234). */
  const shownNumber = async (text: Promise<string | null>) => Number(((await text) ?? '').replace(/\D/g, '') || '0');

  beforeAll(async () => {
    h = await startBrowserHarness();
    second = await startApiProcesses({ databaseUrl: h.admin.db.url, count: 1, redisPrefix: h.admin.api.env.REDIS_KEY_PREFIX, env: { USAGE_FLUSH_MS: '500' } });
    ({ context, page } = await h.newPage());
  });

  afterAll(async () => {
    await second?.stop();
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
    // Signed in, the login page sends on to where signing in would have led (never back to itself).
    await page.goto('/login?next=%2Faudit');
    await page.waitForURL((url) => url.pathname === '/audit');
    await page.goto('/login?next=%2Flogin');
    await page.waitForURL((url) => url.pathname === '/');
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
    await expect.poll(() => page.locator('main .alert').first().textContent()).toContain('A plan named "Starter" already exists.');
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
    // The field says UTC and is read as UTC, though this browser is in Los Angeles.
    await page.locator('#key-expires').fill('2030-06-01T12:00');
    await page.getByRole('button', { name: 'Create key' }).click();

    const secretBox = page.getByTestId('key-secret');
    await secretBox.waitFor();
    const [issued] = (await h.admin.call('GET', '/v1/keys?q=Acme production')).body.items;
    expect(issued.expiresAt).toBe('2030-06-01T12:00:00.000Z');
    expect((await h.admin.call('PATCH', `/v1/keys/${issued.id}`, { expiresAt: null })).status).toBe(200);
    secret = (await secretBox.textContent())!.trim();
    expect(secret).toMatch(/^tg_[1-9A-HJ-NP-Za-km-z]+$/);
    await page.getByText('it will not be shown again').waitFor();
    await h.screenshot(page, 'key-secret');

    // The copy button puts exactly the secret on the clipboard.
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: h.dashboardUrl });
    // (Located by its box, not its name: the name turns into "Copied" for two seconds.)
    const copy = page.locator('.secret').getByRole('button');
    expect(await copy.textContent()).toBe('Copy');
    await copy.click();
    await expect.poll(() => copy.getAttribute('data-copied')).toBe('copied');
    expect(await copy.textContent()).toBe('Copied');
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(secret);

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
    await page.getByRole('link', { name: 'Acme production' }).waitFor();
    // Status is what verification answers now: the new key is enabled, not expired.
    await page.locator('#filter-status').selectOption('expired');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByText('No keys match these filters').waitFor();
    expect(new URL(page.url()).searchParams.get('status')).toBe('expired');
    // Clear filters empties the inputs too, not only the URL (they are uncontrolled).
    await page.getByRole('link', { name: 'Clear filters' }).click();
    await page.waitForURL((url) => url.pathname === '/keys' && url.search === '');
    await expect.poll(() => page.locator('#filter-q').inputValue()).toBe('');
    expect(await page.locator('#filter-status').inputValue()).toBe('');
    await page.locator('#filter-q').fill('acme');
    await page.locator('#filter-status').selectOption('enabled');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByRole('link', { name: 'Acme production' }).click();
    await page.waitForURL(/\/keys\/key_/);
    keyId = new URL(page.url()).pathname.split('/').pop()!;
    expect((await verify(secret)).code).toBe('VALID');
  });

  it('key detail: traffic moves the chart, and the range picker redraws it by the hour', async () => {
    await page.getByRole('heading', { name: 'Acme production' }).waitFor();
    await page.getByTestId('effective-burst').waitFor();
    expect(await page.getByTestId('effective-burst').textContent()).toContain('100 per 1 s');

    // The chart itself: the sum of the bars it plots (data-total) rises by at least what was sent.
    const chart = page.getByTestId('usage-chart');
    await chart.waitFor();
    expect(await chart.getAttribute('data-range')).toBe('1h');
    // Its ticks are UTC (the browser runs in Los Angeles), and the axis says so.
    await expect.poll(async () => (await chart.locator('.recharts-label').allTextContents()).join(' ')).toContain('UTC');
    const before = Number(await chart.getAttribute('data-total'));
    for (let i = 0; i < 20; i++) expect((await verify(secret)).code).toBe('VALID');
    await expect.poll(async () => Number(await chart.getAttribute('data-total')), { timeout: 15_000, interval: 250 }).toBeGreaterThanOrEqual(before + 20);
    // "Right now": the quota spent so far (21 verifications at least) and each limit's room, read from Redis.
    const quotaUse = page.getByTestId('key-quota-use');
    const used = async () => Number(/Quota: ([\d,]+) of 50,000 used/.exec((await quotaUse.textContent()) ?? '')?.[1]?.replace(/,/g, '') ?? -1);
    await expect.poll(used, { timeout: 15_000, interval: 250 }).toBeGreaterThanOrEqual(21);
    expect(await page.getByTestId('key-state-burst').textContent()).toMatch(/of 100/);
    await h.screenshot(page, 'key-detail');

    // 24h: hour bars over the last day. Never minute-sized data stretched over a day (or the reverse).
    const picker = page.getByRole('group', { name: 'Time range' });
    await picker.getByRole('button', { name: '24h' }).click();
    expect(await picker.getByRole('button', { name: '24h' }).getAttribute('aria-pressed')).toBe('true');
    const consistent = async () => {
      const [granularity, points] = [await chart.getAttribute('data-granularity'), Number(await chart.getAttribute('data-points'))];
      return granularity === 'minute' ? points <= 62 : granularity === 'hour' && points <= 26;
    };
    expect(await consistent()).toBe(true);
    await expect.poll(() => chart.getAttribute('data-range')).toBe('24h');
    expect(await chart.getAttribute('data-granularity')).toBe('hour');
    expect(Number(await chart.getAttribute('data-points'))).toBeGreaterThanOrEqual(24);
    expect(await consistent()).toBe(true);
    expect(await chart.getAttribute('aria-label')).toBe('Requests per hour, last 24 hours');
    await h.screenshot(page, 'key-detail-24h');
    await picker.getByRole('button', { name: '1h' }).click();
    await expect.poll(() => chart.getAttribute('data-range')).toBe('1h');

    // A slow answer: while the 24h series is held back, the old range stays drawn under a note
    // saying so (the picker already shows 24h); the note goes when the new range arrives.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route(/\/v1\/usage\?.*granularity=hour/, async (route) => {
      await held;
      await route.continue();
    });
    await picker.getByRole('button', { name: '24h' }).click();
    const note = page.getByTestId('usage-switching');
    await note.waitFor();
    expect(await note.textContent()).toMatch(/Loading last 24 hours… showing last hour/);
    expect(await chart.getAttribute('data-range')).toBe('1h');
    release();
    await expect.poll(() => chart.getAttribute('data-range')).toBe('24h');
    await note.waitFor({ state: 'detached' });
    await page.unroute(/\/v1\/usage\?.*granularity=hour/);
    await picker.getByRole('button', { name: '1h' }).click();
    await expect.poll(() => chart.getAttribute('data-range')).toBe('1h');

    // Live mode: the SSE stream through the dashboard's /api proxy, counted per second.
    // (Before the limit is tightened: a key refused once is refused by the instance locally
    // afterwards, and those refusals are not metered, so the overview could not count them.)
    await page.getByRole('button', { name: 'Live' }).click();
    await page.getByText('live', { exact: true }).waitFor();
    await expect
      .poll(
        async () => {
          await verify(secret);
          return Number((await page.getByTestId('usage-chart').getAttribute('data-total')) ?? '0');
        },
        { timeout: 10_000, interval: 500 },
      )
      .toBeGreaterThan(0);
    await h.screenshot(page, 'key-live');
    await page.getByRole('button', { name: 'Stop live' }).click();
    await expect.poll(() => chart.getAttribute('data-range')).toBe('1h');
  });

  it('key detail: a limit tightened in the editor answers 429 on another API instance within a second', async () => {
    const api2 = second!.urls[0]!;
    // The second instance has the key (and its old limits) cached before the change.
    expect(await echo(api2, secret)).toBe(200);
    const rateLimitedBefore = await shownNumber(page.getByTestId('usage-rateLimited').first().textContent());

    await page.getByRole('button', { name: 'Override “burst”' }).click();
    await page.locator('#override-0-limit').fill('2');
    await page.getByTestId('limit-burst').getByLabel('Window unit').selectOption('min');
    const patched = page.waitForResponse((res) => res.request().method() === 'PATCH' && new URL(res.url()).pathname === `/api/v1/keys/${keyId}`);
    await page.getByRole('button', { name: 'Save limits' }).click();
    expect((await patched).status()).toBe(200);
    const savedAt = Date.now();

    // From the save's response on: traffic to the other instance gets a 429 within 1000 ms.
    const statuses: number[] = [];
    let rejectedAfter = Number.POSITIVE_INFINITY;
    while (Date.now() - savedAt < 1000) {
      const status = await echo(api2, secret);
      statuses.push(status);
      if (status === 429) {
        rejectedAfter = Date.now() - savedAt;
        break;
      }
    }
    expect(statuses, `statuses from the second instance after the save: ${statuses.join(',')}`).toContain(429);
    expect(rejectedAfter).toBeLessThan(1000);
    expect(statuses.filter((status) => status === 200).length).toBeLessThanOrEqual(2);

    await page.getByText('Saved. In effect within a second').waitFor();
    await expect.poll(() => page.getByTestId('effective-burst').textContent()).toContain('2 per 1 min');
    const key = (await h.admin.call('GET', `/v1/keys/${keyId}`)).body;
    expect(key.limits).toEqual([expect.objectContaining({ name: 'burst', algorithm: 'token_bucket', limit: 2, windowMs: 60_000 })]);
    await h.screenshot(page, 'key-limits-saved');

    // The rejection is metered (by the second instance) and shows on the key's page.
    await expect.poll(() => shownNumber(page.getByTestId('usage-rateLimited').first().textContent()), { timeout: 15_000, interval: 250 }).toBeGreaterThan(rateLimitedBefore);

    // The change is in the key's audit trail on the same page.
    await page.reload();
    await page.getByRole('heading', { name: 'Recent changes' }).waitFor();
    expect(await page.getByText('key.update').count()).toBeGreaterThan(0);
  });

  it('does not offer to delete a plan that keys use, and says why', async () => {
    await page.goto('/plans');
    await page.getByRole('button', { name: 'Delete' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('heading', { name: 'Plan “Starter” is in use' }).waitFor();
    expect(await dialog.textContent()).toMatch(/\d+ keys? uses? this plan/);
    expect(await dialog.getByRole('button', { name: 'Delete plan' }).count()).toBe(0);
    await h.screenshot(page, 'plan-delete-refused');
    await dialog.getByRole('button', { name: 'Close', exact: true }).click();
    expect((await h.admin.call('GET', '/v1/plans')).body.items).toHaveLength(1);
  });

  it('shows the audit log and the overview', async () => {
    await page.goto('/audit');
    await page.getByRole('heading', { name: 'Audit log' }).waitFor();
    expect(await page.getByText('plan.create').count()).toBe(1);
    expect(await page.getByText('key.create').count()).toBe(1);
    // Changes made in the dashboard name the admin who made them.
    expect(await page.locator('main table').getByText(h.admin.adminEmail, { exact: true }).count()).toBeGreaterThan(0);
    await h.screenshot(page, 'audit');

    await page.goto('/');
    await page.getByRole('heading', { name: 'Requests over time' }).waitFor();
    // Everything the key sent in the last hour is counted (other keys: none).
    const apiTotals = async () => JSON.stringify((await h.admin.call('GET', `/v1/usage?granularity=minute&from=${new Date(Date.now() - 3_600_000).toISOString()}&to=${new Date().toISOString()}`)).body.totals);
    await expect
      .poll(() => shownNumber(page.getByTestId('usage-total').textContent()), { timeout: 15_000, interval: 250, message: `sent ${sent}; the API counts ${await apiTotals()}` })
      .toBeGreaterThanOrEqual(sent);
    expect(Number(await page.getByTestId('usage-chart').getAttribute('data-total'))).toBeGreaterThanOrEqual(sent);
    expect(await shownNumber(page.getByTestId('usage-rateLimited').textContent())).toBeGreaterThan(0);
    await page.getByRole('heading', { name: 'Top keys' }).waitFor();
    await page.getByTestId('top-keys').getByRole('link', { name: 'Acme production' }).waitFor();
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
    // Its deliveries: none, unless the flusher has queued a ratelimit.exceeded for the earlier
    // tests' 429s since (their minute flushed after this webhook was created, a race with the
    // clock's minute boundary): then only such events.
    const createdDeliveries = created.getByTestId('webhook-deliveries');
    await created.getByText('No deliveries yet').or(createdDeliveries).waitFor();
    if (await createdDeliveries.count()) expect(await createdDeliveries.getByText('quota.threshold').count()).toBe(0);
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
    // Newest first. The three seeded above are the oldest rows; a real ratelimit.exceeded that the
    // flusher queued for this webhook (the earlier tests' traffic, flushed after it was created)
    // may come before them.
    expect((await keptCard.getByTestId('delivery-status').allTextContents()).slice(-3)).toEqual(['pending', 'failed', 'succeeded']);
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
    expect((await verify(secret)).code).toBe('DISABLED');
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
    // Both secrets are accepted during the grace period (the tight burst limit may answer RATE_LIMITED).
    expect(['VALID', 'RATE_LIMITED']).toContain((await verify(secret)).code);
    expect(['VALID', 'RATE_LIMITED']).toContain((await verify(newSecret)).code);
    rotatedSecret = newSecret;
    rotatedKeyId = newKeyId;

    // In the keys list the two rows of the same name stand apart: the old one says when it expires.
    await page.goto('/keys');
    const oldRow = page.locator('tr', { has: page.locator(`a[href="/keys/${keyId}"]`) });
    const newRow = page.locator('tr', { has: page.locator(`a[href="/keys/${newKeyId}"]`) });
    await oldRow.waitFor();
    expect(await oldRow.textContent()).toMatch(/expires/);
    expect(await newRow.textContent()).not.toMatch(/expires/);

    // Both keys of the name have traffic (the new one inherits the tightened burst, so its
    // decision may be a 429; either is counted): Top keys tells them apart by id.
    expect(['VALID', 'RATE_LIMITED']).toContain((await verify(newSecret)).code);
    await page.goto('/');
    const top = page.getByTestId('top-keys');
    await expect.poll(() => top.textContent(), { timeout: 20_000, interval: 500 }).toContain(newKeyId);
    expect(await top.textContent()).toContain(keyId);
  });

  it('revokes a key after confirmation: the API then knows it no more', async () => {
    await page.goto(`/keys/${rotatedKeyId}`);
    await page.getByTestId('effective-burst').waitFor();
    await page.locator('main .page-header').getByRole('button', { name: 'Revoke' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('cannot be undone').waitFor();
    // Cancel first: nothing happens.
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect((await h.admin.call('GET', `/v1/keys/${rotatedKeyId}`)).status).toBe(200);

    await page.locator('main .page-header').getByRole('button', { name: 'Revoke' }).click();
    await h.screenshot(page, 'key-revoke-confirm');
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke key' }).click();
    await page.waitForURL((url) => url.pathname === '/keys');
    expect((await h.admin.call('GET', `/v1/keys/${rotatedKeyId}`)).status).toBe(404);
    expect((await verify(rotatedSecret)).code).toBe('NOT_FOUND');
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
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

  it('shows the API refusal when a plan gained a key after its page loaded', async () => {
    const spare = (await h.admin.call('POST', '/v1/plans', { name: 'Spare', limits: [] })).body;
    await page.goto(`/plans/${spare.id}`);
    await page.getByRole('heading', { name: 'Spare' }).waitFor();
    // Expiring in a moment: an expired key still holds its plan.
    const issued = await h.admin.call('POST', '/v1/keys', { name: 'late arrival', planId: spare.id, expiresAt: new Date(Date.now() + 1500).toISOString() });
    expect(issued.status).toBe(201);
    await page.locator('main .page-header').getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('button', { name: 'Delete plan' }).click();
    const alert = page.getByRole('dialog').getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/key/i);
    await page.getByRole('button', { name: 'Cancel' }).click();
    expect((await h.admin.call('GET', `/v1/plans/${spare.id}`)).status).toBe(200);

    // The expired key's page offers no Enable/Disable (verification answers EXPIRED either way).
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, new Date(issued.body.expiresAt).getTime() - Date.now() + 100)));
    await page.goto(`/keys/${issued.body.id}`);
    const header = page.locator('main .page-header');
    await header.getByText('expired', { exact: true }).waitFor();
    await header.getByRole('button', { name: 'Rotate' }).waitFor();
    for (const name of ['Enable', 'Disable']) expect(await header.getByRole('button', { name, exact: true }).count()).toBe(0);

    // Tidy up for the tests after: revoke the key, then the plan can go.
    expect((await h.admin.call('DELETE', `/v1/keys/${issued.body.id}`)).status).toBe(204);
    expect((await h.admin.call('DELETE', `/v1/plans/${spare.id}`)).status).toBe(204);
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

  it('signs out: the session is gone, and a signed-in page sends back to login', async () => {
    // A second tab watching live usage: signing out in the first ends its stream too.
    const watcher = await context.newPage();
    await watcher.goto('/');
    await watcher.getByRole('button', { name: 'Live' }).first().click();
    await watcher.getByText('live', { exact: true }).first().waitFor();
    await page.goto('/keys');
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL((url) => url.pathname === '/login');
    await watcher.waitForURL((url) => url.pathname === '/login', { timeout: 15_000 });
    await watcher.close();
    await page.goto('/keys');
    expect(new URL(page.url()).pathname + new URL(page.url()).search).toBe('/login?next=%2Fkeys');
    // The cookie the browser still holds (if any) is no longer a session for the API either.
    const cookie = (await context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    expect((await fetch(`${h.admin.api.url}/v1/auth/me`, { headers: { cookie } })).status).toBe(401);
  });
});
