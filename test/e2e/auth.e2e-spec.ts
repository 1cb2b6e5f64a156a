import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../apps/api/src/auth/password';
import { AuthRepository } from '../../apps/api/src/auth/auth.repository';
import { CREDENTIAL_RECHECK_MS } from '../../apps/api/src/usage/usage.controller';
import { startAdminHarness, type AdminHarness } from '../support/admin';
import { startTestApp } from '../support/app';
import { http } from '../support/http';

function sessionFrom(setCookie: string | null): string {
  const match = /tollgate_session=([^;]+)/.exec(setCookie ?? '');
  if (!match) throw new Error(`no session cookie in ${setCookie}`);
  return `tollgate_session=${match[1]}`;
}

describe('admin access: sessions, roles, root keys', () => {
  let h: AdminHarness;
  const viewerEmail = 'viewer@example.test';
  const viewerPassword = 'read only please';

  beforeAll(async () => {
    h = await startAdminHarness();
    await h.api.app.get(AuthRepository).createUser(viewerEmail, await hashPassword(viewerPassword), 'viewer');
  });
  afterAll(async () => h?.close());

  const login = (email: string, password: string, ip = '203.0.113.1') =>
    http(`${h.api.url}/v1/auth/login`, { method: 'POST', json: { email, password }, headers: { 'x-forwarded-for': ip } });

  it('POST /v1/auth/login sets an HttpOnly, SameSite=Lax session cookie (204); /me names the user', async () => {
    const res = await login(h.adminEmail, h.adminPassword);
    expect(res.status).toBe(204);
    const cookie = res.headers.get('set-cookie')!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Path=\//);
    const me = await http(`${h.api.url}/v1/auth/me`, { headers: { cookie: sessionFrom(cookie) } });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ kind: 'admin_user', email: h.adminEmail, role: 'admin' });
  });

  it('a wrong password or unknown email is 401 with the same message; bad input is 400', async () => {
    const wrong = await login(h.adminEmail, 'nope', '203.0.113.2');
    const unknown = await login('who@example.test', 'nope', '203.0.113.2');
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body.detail).toBe(unknown.body.detail);
    const bad = await http(`${h.api.url}/v1/auth/login`, { method: 'POST', json: { email: 'not-an-email' }, headers: { 'x-forwarded-for': '203.0.113.2' } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { path: string }) => e.path)).toEqual(expect.arrayContaining(['email', 'password']));
  });

  it('the 11th login attempt from one IP within a minute is 429 with Retry-After; other IPs are unaffected', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 11; i += 1) statuses.push((await login(h.adminEmail, 'wrong', '198.51.100.7')).status);
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(statuses[10]).toBe(429);
    const limited = await login(h.adminEmail, h.adminPassword, '198.51.100.7');
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe('RATE_LIMITED');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await login(h.adminEmail, h.adminPassword, '198.51.100.8')).status).toBe(204);
  });

  it('with TRUST_PROXY=none, X-Forwarded-For is not believed: the login limit counts the socket peer', async () => {
    const strict = await startTestApp(h.db.url, { TRUST_PROXY: 'none' });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 11; i += 1) {
        const res = await http(`${strict.url}/v1/auth/login`, { method: 'POST', json: { email: h.adminEmail, password: 'wrong' }, headers: { 'x-forwarded-for': `198.51.100.${100 + i}` } });
        statuses.push(res.status);
      }
      // Eleven different forwarded addresses, one real peer (127.0.0.1): the 11th attempt is refused.
      expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
      expect(statuses[10]).toBe(429);
    } finally {
      await strict.close();
    }
  });

  it('a viewer can read but any write is 403', async () => {
    const cookie = sessionFrom((await login(viewerEmail, viewerPassword, '203.0.113.3')).headers.get('set-cookie'));
    expect((await http(`${h.api.url}/v1/plans`, { headers: { cookie } })).status).toBe(200);
    expect((await http(`${h.api.url}/v1/keys`, { headers: { cookie } })).status).toBe(200);
    expect((await http(`${h.api.url}/v1/audit`, { headers: { cookie } })).status).toBe(200);
    const write = await http(`${h.api.url}/v1/plans`, { method: 'POST', json: { name: 'sneaky' }, headers: { cookie } });
    expect(write.status).toBe(403);
    expect(write.body.code).toBe('FORBIDDEN');
    expect((await http(`${h.api.url}/v1/keys/key_x`, { method: 'DELETE', headers: { cookie } })).status).toBe(403);
    expect((await h.call('GET', '/v1/plans')).body.items.some((plan: { name: string }) => plan.name === 'sneaky')).toBe(false);
  });

  it('logout ends the session: the cookie no longer works', async () => {
    const cookie = sessionFrom((await login(h.adminEmail, h.adminPassword, '203.0.113.4')).headers.get('set-cookie'));
    const out = await http(`${h.api.url}/v1/auth/logout`, { method: 'POST', headers: { cookie } });
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(/Max-Age=0/);
    const me = await http(`${h.api.url}/v1/auth/me`, { headers: { cookie } });
    expect(me.status).toBe(401);
  });

  it('logout also ends a usage stream opened with that session, within seconds', async () => {
    const res = await login(h.adminEmail, h.adminPassword, '203.0.113.9');
    const cookie = sessionFrom(res.headers.get('set-cookie')!);
    const stream = await fetch(`${h.api.url}/v1/usage/stream`, { headers: { cookie } });
    expect(stream.status).toBe(200);
    const reader = stream.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const ended = (async () => {
      for (;;) {
        const chunk = await reader.read();
        if (chunk.done) return Date.now();
        text += decoder.decode(chunk.value, { stream: true });
      }
    })();
    const loggedOutAt = Date.now();
    expect((await http(`${h.api.url}/v1/auth/logout`, { method: 'POST', headers: { cookie } })).status).toBe(204);
    const endedAt = await Promise.race([ended, new Promise<number>((resolve) => setTimeout(() => resolve(-1), 12_000))]);
    expect(endedAt, 'the stream outlived the session').toBeGreaterThan(0);
    expect(endedAt - loggedOutAt).toBeLessThan(CREDENTIAL_RECHECK_MS + 2000);
    expect(text).toContain('event: unauthorized');
    // Reconnecting with the old cookie is refused.
    expect((await fetch(`${h.api.url}/v1/usage/stream`, { headers: { cookie } })).status).toBe(401);
  }, 20_000);

  it('the root key from TOLLGATE_ROOT_KEY works as a bearer token; garbage credentials are 401', async () => {
    expect((await h.call('GET', '/v1/auth/me')).body).toMatchObject({ kind: 'root_key', role: 'admin' });
    expect((await http(`${h.api.url}/v1/auth/me`, { headers: { authorization: 'Basic abc' } })).status).toBe(401);
    expect((await http(`${h.api.url}/v1/auth/me`, { headers: { cookie: 'tollgate_session=forged' } })).status).toBe(401);
    expect((await http(`${h.api.url}/v1/auth/me`)).status).toBe(401);
  });

  it('every write lands in the audit log, paged newest first', async () => {
    const plan = await h.call('POST', '/v1/plans', { name: 'audited' });
    await h.call('PATCH', `/v1/plans/${plan.body.id}`, { description: 'changed' });
    const key = await h.call('POST', '/v1/keys', { name: 'audited key', planId: plan.body.id });
    await h.call('PATCH', `/v1/keys/${key.body.id}`, { name: 'renamed' });
    await h.call('POST', `/v1/keys/${key.body.id}/rotate`, {});
    await h.call('DELETE', `/v1/keys/${key.body.rotatedToId ?? key.body.id}`);
    const seen: any[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await h.call('GET', `/v1/audit?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...page.body.items);
      cursor = page.body.nextCursor;
    } while (cursor);
    const actions = seen.map((entry) => `${entry.action}:${entry.targetId}`);
    expect(actions).toEqual(expect.arrayContaining([`plan.create:${plan.body.id}`, `plan.update:${plan.body.id}`, `key.create:${key.body.id}`, `key.update:${key.body.id}`, `key.rotate:${key.body.id}`]));
    expect(seen.filter((entry) => entry.action === 'key.revoke')).toHaveLength(1);
    const times = seen.map((entry) => entry.at);
    expect([...times].sort().reverse()).toEqual(times);
    for (const entry of seen) expect(entry.actor).toMatch(/^root_key:/);
    // Named as a person reads it: the root key of the environment.
    for (const entry of seen) expect(entry.actorName).toBe('TOLLGATE_ROOT_KEY');
    // A dashboard user's change names their email.
    const cookie = sessionFrom((await login(h.adminEmail, h.adminPassword, '203.0.113.9')).headers.get('set-cookie'));
    const byUser = await http(`${h.api.url}/v1/plans/${plan.body.id}`, { method: 'PATCH', json: { description: 'by a person' }, headers: { cookie } });
    expect(byUser.status).toBe(200);
    const latest = (await h.call('GET', `/v1/audit?targetId=${plan.body.id}&limit=1`)).body.items[0];
    expect(latest).toMatchObject({ action: 'plan.update', actor: expect.stringMatching(/^admin:/), actorName: h.adminEmail });
    const badCursor = await h.call('GET', '/v1/audit?cursor=not-a-cursor');
    expect(badCursor.status).toBe(400);
    expect(badCursor.body.errors).toEqual([{ path: 'query.cursor', message: 'is not a cursor this API returned' }]);
    expect((await h.call('GET', '/v1/audit?limit=101')).status).toBe(400);
  });
});
