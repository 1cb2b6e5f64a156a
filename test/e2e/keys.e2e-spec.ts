import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { burstLimit, startAdminHarness, sustainedLimit, type AdminHarness } from '../support/admin';

const SECRET_PATTERN = /^tg_[1-9A-HJ-NP-Za-km-z]{30,34}$/;

describe('/v1/keys', () => {
  let h: AdminHarness;
  let planId: string;
  let otherPlanId: string;
  const secrets: string[] = [];

  beforeAll(async () => {
    h = await startAdminHarness();
    planId = (await h.call('POST', '/v1/plans', { name: 'free', limits: [burstLimit, sustainedLimit] })).body.id;
    otherPlanId = (await h.call('POST', '/v1/plans', { name: 'pro', limits: [{ ...burstLimit, limit: 100, burst: 100 }] })).body.id;
  });
  afterAll(async () => h?.close());

  it('POST issues a key (201): secret shown once, prefix honoured, only its hash stored', async () => {
    const res = await h.call('POST', '/v1/keys', { name: 'Acme prod', planId, ownerId: 'acme', meta: { tier: 'gold' }, limits: [{ ...burstLimit, limit: 20, burst: 20 }] });
    expect(res.status).toBe(201);
    expect(res.body.key).toMatch(SECRET_PATTERN);
    secrets.push(res.body.key);
    expect(res.body).toMatchObject({ name: 'Acme prod', planId, ownerId: 'acme', enabled: true, expiresAt: null, meta: { tier: 'gold' }, start: res.body.key.slice(0, 8), lastUsedAt: null });
    expect(res.body.limits).toEqual([{ ...burstLimit, limit: 20, burst: 20, scope: 'key' }]);

    const custom = await h.call('POST', '/v1/keys', { name: 'custom', planId, prefix: 'acme1' });
    expect(custom.body.key).toMatch(/^acme1_/);
    secrets.push(custom.body.key);

    const again = await h.call('GET', `/v1/keys/${res.body.id}`);
    expect(again.status).toBe(200);
    expect(again.body.key).toBeUndefined();
  });

  it('POST answers 400 naming bad fields and 404 naming a missing plan', async () => {
    const bad = await h.call('POST', '/v1/keys', { name: 'x', planId, prefix: 'Has_Caps', expiresAt: 'tomorrow', meta: { blob: 'x'.repeat(5000) }, color: 'red' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { path: string }) => e.path)).toEqual(expect.arrayContaining(['prefix', 'expiresAt', 'meta', 'color']));
    const past = await h.call('POST', '/v1/keys', { name: 'x', planId, expiresAt: '2001-01-01T00:00:00Z' });
    expect(past.status).toBe(400);
    expect(past.body.errors).toEqual([{ path: 'expiresAt', message: 'must be in the future' }]);
    const missingPlan = await h.call('POST', '/v1/keys', { name: 'x', planId: 'plan_missing' });
    expect(missingPlan.status).toBe(404);
    expect(missingPlan.body.errors).toEqual([{ path: 'planId', message: 'no plan with this id' }]);
    const noName = await h.call('POST', '/v1/keys', { planId });
    expect(noName.status).toBe(400);
    expect(noName.body.errors[0].path).toBe('name');
  });

  it('GET lists with filters and cursor pagination through every key exactly once', async () => {
    for (let i = 0; i < 7; i += 1) {
      const res = await h.call('POST', '/v1/keys', { name: `bulk-${i}`, planId: i % 2 ? otherPlanId : planId, ownerId: i < 3 ? 'globex' : undefined });
      secrets.push(res.body.key);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await h.call('GET', `/v1/keys?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.status).toBe(200);
      expect(page.body.items.length).toBeLessThanOrEqual(3);
      seen.push(...page.body.items.map((key: { id: string }) => key.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen).toHaveLength(9);
    expect(new Set(seen).size).toBe(9);

    const byPlan = await h.call('GET', `/v1/keys?planId=${otherPlanId}`);
    expect(byPlan.body.items).toHaveLength(3);
    const byOwner = await h.call('GET', '/v1/keys?ownerId=globex');
    expect(byOwner.body.items).toHaveLength(3);
    const search = await h.call('GET', '/v1/keys?q=ACME');
    expect(search.body.items.map((key: { name: string }) => key.name)).toEqual(['Acme prod']);
    // `%`, `_` and `\` are searched for literally, not as LIKE wildcards.
    for (const q of ['%', '_', '%25', 'A_me', 'Acme%', '\\']) {
      const literal = await h.call('GET', `/v1/keys?q=${encodeURIComponent(q)}`);
      expect(literal.status, q).toBe(200);
      expect(literal.body.items, q).toEqual([]);
    }

    expect((await h.call('GET', '/v1/keys?limit=0')).body.errors[0].path).toBe('query.limit');
    expect((await h.call('GET', '/v1/keys?limit=101')).status).toBe(400);
    // Number() would read these as 16, 10 and 0: only plain decimal digits are a page size.
    for (const limit of ['0x10', '1e1', '']) expect((await h.call('GET', `/v1/keys?limit=${limit}`)).body.errors?.[0]?.path, limit).toBe('query.limit');
    const repeated = await h.call('GET', '/v1/keys?limit=1&limit=2&status=enabled');
    expect(repeated.status).toBe(400);
    expect(repeated.body.errors).toEqual([{ path: 'query.limit', message: 'must be given once' }]);
    const badCursor = await h.call('GET', '/v1/keys?cursor=garbage');
    expect(badCursor.body.errors[0].path).toBe('query.cursor');
    expect(badCursor.body.detail).toBe('Invalid request: query.cursor is not a cursor this API returned');
    expect((await h.call('GET', '/v1/keys?color=red')).status).toBe(400);
  });

  it('GET ?status= filters by what verification answers now: expired (expiry or grace passed) before disabled', async () => {
    const make = async (name: string) => {
      const res = await h.call('POST', '/v1/keys', { name, planId, ownerId: 'status-owner' });
      secrets.push(res.body.key);
      return res.body.id as string;
    };
    const enabled = await make('s-enabled');
    const disabled = await make('s-disabled');
    await h.call('PATCH', `/v1/keys/${disabled}`, { enabled: false });
    const rotatedAway = await make('s-rotated');
    const successor = await h.call('POST', `/v1/keys/${rotatedAway}/rotate`, { gracePeriodMs: 0 });
    secrets.push(successor.body.key);
    const disabledRotated = await make('s-disabled-rotated');
    await h.call('PATCH', `/v1/keys/${disabledRotated}`, { enabled: false });
    const disabledSuccessor = await h.call('POST', `/v1/keys/${disabledRotated}/rotate`, { gracePeriodMs: 0 });
    secrets.push(disabledSuccessor.body.key);
    const ids = async (status: string) => {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page: any = await h.call('GET', `/v1/keys?ownerId=status-owner&status=${status}&limit=1${cursor ? `&cursor=${cursor}` : ''}`);
        expect(page.status).toBe(200);
        seen.push(...page.body.items.map((key: { id: string }) => key.id));
        cursor = page.body.nextCursor;
      } while (cursor);
      return seen.sort();
    };
    expect(await ids('enabled')).toEqual([enabled, successor.body.id].sort());
    expect(await ids('disabled')).toEqual([disabled, disabledSuccessor.body.id].sort());
    expect(await ids('expired')).toEqual([rotatedAway, disabledRotated].sort());
    // `enabled=true` stays the flag alone, expired keys included.
    expect((await h.call('GET', '/v1/keys?ownerId=status-owner&enabled=true')).body.items).toHaveLength(3);
    const bad = await h.call('GET', '/v1/keys?status=active');
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0]).toEqual({ path: 'query.status', message: 'must be one of enabled, disabled, expired' });
  });

  it('PATCH changes name, enabled, expiry, meta, plan, owner and overrides; audits before/after', async () => {
    const created = await h.call('POST', '/v1/keys', { name: 'patch me', planId });
    const id = created.body.id;
    const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
    const res = await h.call('PATCH', `/v1/keys/${id}`, { name: 'patched', enabled: false, expiresAt, meta: { a: 1 }, planId: otherPlanId, ownerId: 'initech', limits: [sustainedLimit] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'patched', enabled: false, expiresAt, meta: { a: 1 }, planId: otherPlanId, ownerId: 'initech', limits: [{ ...sustainedLimit, scope: 'key' }] });
    const cleared = await h.call('PATCH', `/v1/keys/${id}`, { expiresAt: null, meta: null, ownerId: null });
    expect(cleared.body).toMatchObject({ expiresAt: null, meta: null, ownerId: null });
    expect((await h.call('PATCH', `/v1/keys/${id}`, { planId: 'plan_missing' })).status).toBe(404);
    expect((await h.call('PATCH', `/v1/keys/${id}`, { enabled: 'yes' })).body.errors[0].path).toBe('enabled');
    expect((await h.call('PATCH', '/v1/keys/key_missing', { name: 'x' })).status).toBe(404);
    const audit = await h.call('GET', `/v1/audit?targetId=${id}`);
    expect(audit.body.items.map((entry: { action: string }) => entry.action)).toEqual(['key.update', 'key.update', 'key.create']);
    expect(audit.body.items[1].before.name).toBe('patch me');
    expect(audit.body.items[1].after.name).toBe('patched');
  });

  it('POST /rotate issues a successor (201); the old secret verifies until the grace ends, then EXPIRED', async () => {
    const created = await h.call('POST', '/v1/keys', { name: 'rotating', planId });
    const rotated = await h.call('POST', `/v1/keys/${created.body.id}/rotate`, { gracePeriodMs: 1500 });
    expect(rotated.status).toBe(201);
    expect(rotated.body.key).toMatch(SECRET_PATTERN);
    expect(rotated.body.id).not.toBe(created.body.id);
    expect(rotated.body.name).toBe('rotating');
    secrets.push(created.body.key, rotated.body.key);

    expect((await h.call('POST', '/v1/keys/verify', { key: created.body.key })).body).toMatchObject({ valid: true, code: 'VALID', keyId: created.body.id });
    expect((await h.call('POST', '/v1/keys/verify', { key: rotated.body.key })).body).toMatchObject({ valid: true, keyId: rotated.body.id });
    await new Promise((resolve) => setTimeout(resolve, 1700));
    expect((await h.call('POST', '/v1/keys/verify', { key: created.body.key })).body).toMatchObject({ valid: false, code: 'EXPIRED' });
    expect((await h.call('POST', '/v1/keys/verify', { key: rotated.body.key })).body.valid).toBe(true);

    expect((await h.call('POST', `/v1/keys/${created.body.id}/rotate`, {})).status).toBe(409);
    // The grace period bounds the old key: a later or no expiry would change nothing, so it is refused.
    for (const expiresAt of [null, new Date(Date.now() + 86_400_000).toISOString()]) {
      const moot = await h.call('PATCH', `/v1/keys/${created.body.id}`, { expiresAt });
      expect(moot.status).toBe(409);
      expect(moot.body.errors).toEqual([{ path: 'expiresAt', message: expect.stringContaining('grace period') }]);
    }
    // Bringing a grace period to an early end is what such a PATCH is for.
    const inGrace = await h.call('POST', `/v1/keys/${rotated.body.id}/rotate`, { gracePeriodMs: 3_600_000 });
    secrets.push(inGrace.body.key);
    const earlier = new Date(Date.now() + 60_000).toISOString();
    const shortened = await h.call('PATCH', `/v1/keys/${rotated.body.id}`, { expiresAt: earlier });
    expect(shortened.status).toBe(200);
    expect(shortened.body.expiresAt).toBe(earlier);

    // The successor keeps the prefix the key was issued with (8 characters: `start` has no `_`).
    const prefixed = await h.call('POST', '/v1/keys', { name: 'prefixed', planId, prefix: 'abcd1234' });
    const successor = await h.call('POST', `/v1/keys/${prefixed.body.id}/rotate`, {});
    secrets.push(prefixed.body.key, successor.body.key);
    expect(successor.body.key).toMatch(/^abcd1234_/);
    expect((await h.call('POST', `/v1/keys/${inGrace.body.id}/rotate`, { gracePeriodMs: 2_592_000_001 })).body.errors[0].path).toBe('gracePeriodMs');
    expect((await h.call('POST', '/v1/keys/key_missing/rotate', {})).status).toBe(404);
  });

  it('GET /:id/state reads where the limits and quota stand, charging and metering nothing', async () => {
    const plan = await h.call('POST', '/v1/plans', {
      name: 'state-plan',
      limits: [
        { name: 'hourly', algorithm: 'fixed_window', limit: 5, windowMs: 3_600_000 },
        { name: 'burst', algorithm: 'token_bucket', limit: 1, windowMs: 3_600_000, burst: 4 },
      ],
      quota: { limit: 10, period: 'day' },
    });
    const key = await h.call('POST', '/v1/keys', { name: 'inspected', planId: plan.body.id });
    secrets.push(key.body.key);
    const state = async () => {
      const res = await h.call('GET', `/v1/keys/${key.body.id}/state`);
      expect(res.status).toBe(200);
      return res.body;
    };
    const fresh = await state();
    expect(fresh).toMatchObject({
      keyId: key.body.id,
      status: 'enabled',
      limits: [
        { name: 'hourly', algorithm: 'fixed_window', scope: 'key', limit: 5, windowMs: 3_600_000, capacity: 5, remaining: 5 },
        // A bucket's rate is not what it holds: 1 per hour, up to 4.
        { name: 'burst', algorithm: 'token_bucket', scope: 'key', limit: 1, windowMs: 3_600_000, capacity: 4, remaining: 4 },
      ],
      quota: { limit: 10, remaining: 10 },
    });
    expect(Date.parse(fresh.at)).toBeGreaterThan(Date.now() - 60_000);
    for (let i = 0; i < 3; i++) expect((await h.call('POST', '/v1/keys/verify', { key: key.body.key })).body.valid).toBe(true);
    // Reading twice changes nothing: the state is not a request, and usage (live minute included) counts none.
    const totals = async () => (await h.call('GET', `/v1/usage?keyId=${key.body.id}`)).body.totals;
    expect(await totals()).toMatchObject({ valid: 3, invalid: 0 });
    for (let i = 0; i < 2; i++) {
      expect(await state()).toMatchObject({ limits: [{ name: 'hourly', remaining: 2 }, { name: 'burst', remaining: 1 }], quota: { remaining: 7 } });
    }
    expect(await totals()).toMatchObject({ valid: 3, rateLimited: 0, quotaExceeded: 0, invalid: 0 });
    const next = (await h.call('POST', '/v1/keys/verify', { key: key.body.key })).body;
    expect(next).toMatchObject({ valid: true, limits: [{ remaining: 1 }, { remaining: 0 }], quota: { remaining: 6 } });
    // Spent limits read as 0 remaining; a disabled key's counters are still shown, with its status.
    await h.call('PATCH', `/v1/keys/${key.body.id}`, { enabled: false });
    expect(await state()).toMatchObject({ status: 'disabled', limits: [{ remaining: 1 }, { remaining: 0 }], quota: { remaining: 6 } });
    expect((await h.call('GET', '/v1/keys/key_missing/state')).status).toBe(404);
    expect((await h.call('DELETE', `/v1/keys/${key.body.id}`)).status).toBe(204);
    expect((await h.call('GET', `/v1/keys/${key.body.id}/state`)).status).toBe(404);
  });

  it('an owner id with braces counts like any other: owner-scoped limits shared by its keys, no 500', async () => {
    const plan = await h.call('POST', '/v1/plans', { name: 'braced-owner', limits: [{ name: 'team', algorithm: 'fixed_window', limit: 3, windowMs: 3_600_000, scope: 'owner' }] });
    const keys = await Promise.all(['a', 'b'].map((name) => h.call('POST', '/v1/keys', { name, planId: plan.body.id, ownerId: 'acme {eu}' })));
    secrets.push(...keys.map((key) => key.body.key));
    const codes: string[] = [];
    for (const key of [...keys, ...keys]) {
      const res = await h.call('POST', '/v1/keys/verify', { key: key.body.key });
      expect(res.status).toBe(200);
      codes.push(res.body.code);
    }
    expect(codes).toEqual(['VALID', 'VALID', 'VALID', 'RATE_LIMITED']);
    expect((await h.call('GET', `/v1/keys/${keys[0].body.id}/state`)).body.limits).toEqual([expect.objectContaining({ name: 'team', remaining: 0 })]);
  });

  it('rotation resets no limit and no quota: old and new secrets share one budget, and so does a second rotation', async () => {
    const tight = await h.call('POST', '/v1/plans', {
      name: 'rotation-budget',
      limits: [{ name: 'hourly', algorithm: 'fixed_window', limit: 3, windowMs: 3_600_000 }],
      quota: { limit: 4, period: 'day' },
    });
    const first = await h.call('POST', '/v1/keys', { name: 'budgeted', planId: tight.body.id });
    const verify = async (key: string) => (await h.call('POST', '/v1/keys/verify', { key })).body;
    expect((await verify(first.body.key)).limits[0].remaining).toBe(2);
    expect((await verify(first.body.key)).limits[0].remaining).toBe(1);
    const second = await h.call('POST', `/v1/keys/${first.body.id}/rotate`, { gracePeriodMs: 60_000 });
    secrets.push(first.body.key, second.body.key);
    // The successor continues the same counters; the old secret, still in its grace, too.
    expect(await verify(second.body.key)).toMatchObject({ valid: true, limits: [{ name: 'hourly', remaining: 0 }], quota: { remaining: 1 } });
    expect(await verify(first.body.key)).toMatchObject({ valid: false, code: 'RATE_LIMITED' });
    expect(await verify(second.body.key)).toMatchObject({ valid: false, code: 'RATE_LIMITED' });
    const third = await h.call('POST', `/v1/keys/${second.body.id}/rotate`, {});
    secrets.push(third.body.key);
    expect(await verify(third.body.key)).toMatchObject({ valid: false, code: 'RATE_LIMITED', quota: { remaining: 1 } });
  });

  it('DELETE revokes (204): the secret then verifies NOT_FOUND and the key is 404', async () => {
    const created = await h.call('POST', '/v1/keys', { name: 'doomed', planId });
    secrets.push(created.body.key);
    expect((await h.call('POST', '/v1/keys/verify', { key: created.body.key })).body.valid).toBe(true);
    expect((await h.call('DELETE', `/v1/keys/${created.body.id}`)).status).toBe(204);
    expect((await h.call('POST', '/v1/keys/verify', { key: created.body.key })).body).toMatchObject({ valid: false, code: 'NOT_FOUND' });
    expect((await h.call('GET', `/v1/keys/${created.body.id}`)).status).toBe(404);
    expect((await h.call('DELETE', `/v1/keys/${created.body.id}`)).status).toBe(404);
  });

  it('no plaintext secret appears in the database or in the logs', async () => {
    const client = new Client({ connectionString: h.db.url });
    await client.connect();
    const tables = ['ApiKey', 'RootKey', 'AdminUser', 'AdminSession', 'AuditLog', 'Plan', 'PlanLimit'];
    let dump = '';
    for (const table of tables) dump += JSON.stringify((await client.query(`SELECT * FROM "${table}"`)).rows);
    await client.end();
    expect(secrets.length).toBeGreaterThan(10);
    for (const secret of [...secrets, h.rootKey, h.adminPassword]) {
      expect(dump).not.toContain(secret);
      expect(h.api.logs.join('\n')).not.toContain(secret);
    }
  });
});
