import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { burstLimit, startAdminHarness, sustainedLimit, type AdminHarness } from '../support/admin';
import { http } from '../support/http';

describe('/v1/plans', () => {
  let h: AdminHarness;
  beforeAll(async () => {
    h = await startAdminHarness();
  });
  afterAll(async () => h?.close());

  it('POST creates a plan (201) with defaults filled in', async () => {
    const res = await h.call('POST', '/v1/plans', { name: 'free', limits: [burstLimit, sustainedLimit], quota: { limit: 1000, period: 'month' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: 'free',
      failMode: 'closed',
      keyCount: 0,
      quota: { limit: 1000, period: 'month', resetDay: 1 },
      limits: [
        { ...burstLimit, scope: 'key', shaping: false },
        { ...sustainedLimit, scope: 'key', shaping: false },
      ],
    });
    expect(res.body.id).toMatch(/^plan_/);
  });

  it('POST answers 409 for a duplicate name, naming the field', async () => {
    await h.call('POST', '/v1/plans', { name: 'dup' });
    const res = await h.call('POST', '/v1/plans', { name: 'dup' });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: 'CONFLICT', errors: [{ path: 'name' }] });
  });

  it('POST answers 400 naming each bad field: unknown fields, wrong types, out-of-range numbers, duplicates', async () => {
    const res = await h.call('POST', '/v1/plans', {
      name: '',
      extra: true,
      limits: [
        { ...burstLimit, limit: 0 },
        { ...burstLimit, windowMs: 'soon' },
        { ...sustainedLimit, algorithm: 'magic' },
      ],
      quota: { limit: 10, period: 'day', resetDay: 3 },
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    const paths = res.body.errors.map((error: { path: string }) => error.path);
    expect(paths).toEqual(expect.arrayContaining(['name', 'extra', 'limits.0.limit', 'limits.1.windowMs', 'limits.2.algorithm', 'quota.resetDay']));
    const dupes = await h.call('POST', '/v1/plans', { name: 'x', limits: [burstLimit, burstLimit] });
    expect(dupes.status).toBe(400);
    expect(dupes.body.errors).toEqual([expect.objectContaining({ path: 'limits.1.name' })]);
    // Only a leaky bucket shapes: anywhere else the engine refuses it, and every check of the plan's keys answered 500.
    const shapedBucket = await h.call('POST', '/v1/plans', { name: 'shaped', limits: [{ ...burstLimit, algorithm: 'token_bucket', shaping: true }] });
    expect(shapedBucket.status).toBe(400);
    expect(shapedBucket.body.errors).toEqual([{ path: 'limits.0.shaping', message: 'applies to leaky_bucket only' }]);
    const tooMany = await h.call('POST', '/v1/plans', { name: 'y', limits: Array.from({ length: 9 }, (_, i) => ({ ...burstLimit, name: `l${i}` })) });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.errors[0].path).toBe('limits');
  });

  it('answers malformed JSON with 400 and oversize bodies with 413, never 500', async () => {
    const malformed = await http(`${h.api.url}/v1/plans`, { method: 'POST', token: h.rootKey, headers: { 'content-type': 'application/json' }, body: '{"name": ' });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toMatchObject({ code: 'MALFORMED_JSON', errors: [{ path: '(body)' }] });
    // Where the JSON breaks, as JSON.parse words it.
    expect(malformed.body.errors[0].message).toMatch(/^Body is not valid JSON: .*JSON/);
    // Bytes that are not UTF-8 are malformed JSON too, said so (not a Content-Length mismatch).
    const notUtf8 = await http(`${h.api.url}/v1/plans`, { method: 'POST', token: h.rootKey, headers: { 'content-type': 'application/json' }, body: Buffer.from([...Buffer.from('{"name":"bad'), 0xff, 0xfe, ...Buffer.from('","limits":[]}')]) });
    expect(notUtf8.status).toBe(400);
    expect(notUtf8.body).toMatchObject({ code: 'MALFORMED_JSON', errors: [{ path: '(body)', message: 'Body is not valid JSON: it is not valid UTF-8' }] });
    // Keys that could rewrite a prototype are refused by name and path: valid JSON, not malformed.
    const raw = (path: string, body: string) => http(`${h.api.url}${path}`, { method: 'POST', token: h.rootKey, headers: { 'content-type': 'application/json' }, body });
    const proto = await raw('/v1/plans', '{"name":"p","limits":[],"__proto__":{"polluted":true}}');
    expect(proto.status).toBe(400);
    expect(proto.body).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ path: '__proto__', message: 'is not accepted as a field name' }] });
    const ctor = await raw('/v1/keys', '{"name":"k","planId":"plan_x","meta":{"a":[{"constructor":{"prototype":{"x":1}}}]}}');
    expect(ctor.status).toBe(400);
    expect(ctor.body).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ path: 'meta.a.0.constructor.prototype' }] });
    expect(ctor.body.detail).toContain('meta.a.0.constructor.prototype');
    const big = await http(`${h.api.url}/v1/plans`, { method: 'POST', token: h.rootKey, json: { name: 'big', description: 'x'.repeat(70 * 1024) } });
    expect(big.status).toBe(413);
    expect(big.body).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    const wrongType = await http(`${h.api.url}/v1/plans`, { method: 'POST', token: h.rootKey, headers: { 'content-type': 'text/plain' }, body: 'name=free' });
    expect(wrongType.status).toBe(415);
    const notObject = await h.call('POST', '/v1/plans', [1, 2]);
    expect(notObject.status).toBe(400);
  });

  it('answers text Postgres cannot store and absurd nesting with 400 naming the field, never 500', async () => {
    // Sent as raw JSON text: the escapes reach the server as a NUL and a lone surrogate.
    const raw = (path: string, body: string) => http(`${h.api.url}${path}`, { method: 'POST', token: h.rootKey, headers: { 'content-type': 'application/json' }, body });
    const nul = await raw('/v1/plans', '{"name":"nul\\u0000","limits":[]}');
    expect(nul.status).toBe(400);
    expect(nul.body).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ path: 'name' }] });
    const surrogate = await raw('/v1/plans', '{"name":"x","description":"\\ud800"}');
    expect(surrogate.status).toBe(400);
    expect(surrogate.body.errors).toEqual([{ path: 'description', message: expect.stringMatching(/surrogate/) }]);
    const plan = await h.call('POST', '/v1/plans', { name: 'text-checks', limits: [] });
    const deep = await raw('/v1/keys', `{"name":"deep","planId":"${plan.body.id}","meta":{"a":${'['.repeat(150)}${']'.repeat(150)}}}`);
    expect(deep.status).toBe(400);
    expect(deep.body.errors[0].path).toMatch(/^meta\.a(\.0)+$/);
    const deeper = await raw('/v1/keys', `{"name":"deeper","planId":"${plan.body.id}","meta":{"a":${'['.repeat(20_000)}${']'.repeat(20_000)}}}`);
    expect(deeper.status).toBe(400);
    const query = await h.call('GET', '/v1/keys?ownerId=%00');
    expect(query.status).toBe(400);
    expect(query.body.errors).toEqual([{ path: 'query.ownerId', message: expect.stringMatching(/NUL/) }]);
    const usage = await h.call('GET', '/v1/usage?keyId=a%00b');
    expect(usage.status).toBe(400);
    // Errors Fastify raises before routing are problem+json too; an over-long id is not found.
    const badUrl = await h.call('GET', '/v1/plans/%zz');
    expect(badUrl.status).toBe(400);
    expect(badUrl.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(badUrl.body.requestId).toEqual(expect.any(String));
    const longId = await h.call('GET', `/v1/plans/${'p'.repeat(150)}`);
    expect(longId.status).toBe(404);
    expect(longId.body).toMatchObject({ code: 'NOT_FOUND', requestId: expect.any(String) });
    // A path that exists under other methods is a 405 saying which, not a 404 ("no such plan").
    const put = await h.call('PUT', '/v1/plans/plan_x', { name: 'x' });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('DELETE, GET, HEAD, PATCH');
    expect(put.body).toMatchObject({ code: 'METHOD_NOT_ALLOWED', title: 'Method Not Allowed', detail: expect.stringContaining('DELETE, GET, HEAD, PATCH') });
    const getRotate = await h.call('GET', '/v1/keys/key_x/rotate');
    expect(getRotate.status).toBe(405);
    expect(getRotate.headers.get('allow')).toBe('POST');
    // /v1/keys/verify is not a key id: another method there is told POST, not "Key not found".
    for (const method of ['GET', 'PATCH', 'DELETE']) {
      const verify = await h.call(method, '/v1/keys/verify', method === 'PATCH' ? { name: 'x' } : undefined);
      expect(verify.status, method).toBe(405);
      expect(verify.headers.get('allow'), method).toBe('POST');
    }
    expect((await h.call('GET', '/v1/nothing-here')).status).toBe(404);
    expect((await h.call('DELETE', '/v1/nothing-here')).status).toBe(404);
    // An empty body with a JSON content type is no body (clients that always send the header).
    const emptyBodied = await h.call('POST', '/v1/plans', { name: 'deleted-with-header', limits: [] });
    const deleted = await http(`${h.api.url}/v1/plans/${emptyBodied.body.id}`, { method: 'DELETE', token: h.rootKey, headers: { 'content-type': 'application/json' }, body: '' });
    expect(deleted.status).toBe(204);
    const emptyCreate = await http(`${h.api.url}/v1/plans`, { method: 'POST', token: h.rootKey, headers: { 'content-type': 'application/json' }, body: '' });
    expect(emptyCreate.status).toBe(400);
    expect(emptyCreate.body.errors.map((e: { path: string }) => e.path)).toContain('name');
    // Emoji (paired surrogates) are fine.
    expect((await h.call('POST', '/v1/plans', { name: 'rocket \u{1F680}', limits: [] })).status).toBe(201);
  });

  it('GET lists and gets plans; unknown ids are 404', async () => {
    const list = await h.call('GET', '/v1/plans');
    expect(list.status).toBe(200);
    // The list has no filters: a query field is named as unknown, not ignored (as on /v1/webhooks).
    for (const path of ['/v1/plans?limit=5', '/v1/webhooks?limit=5']) {
      const filtered = await h.call('GET', path);
      expect(filtered.status, path).toBe(400);
      expect(filtered.body.errors[0].path, path).toBe('query.limit');
    }
    expect(list.body.items.map((plan: { name: string }) => plan.name)).toEqual(expect.arrayContaining(['free', 'dup']));
    const id = list.body.items[0].id;
    expect((await h.call('GET', `/v1/plans/${id}`)).body.id).toBe(id);
    expect((await h.call('GET', '/v1/plans/plan_nope')).status).toBe(404);
    expect((await h.call('GET', `/v1/plans/${'%00'.repeat(3)}`)).status).toBe(404);
  });

  it('PATCH changes limits, bumps the version and audits before/after', async () => {
    const created = await h.call('POST', '/v1/plans', { name: 'patchme', limits: [burstLimit] });
    const res = await h.call('PATCH', `/v1/plans/${created.body.id}`, { limits: [{ ...burstLimit, limit: 50, burst: 50 }], failMode: 'open', quota: null });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ version: 2, failMode: 'open', quota: null, limits: [{ name: 'burst', limit: 50, burst: 50 }] });
    const audit = await h.call('GET', `/v1/audit?targetId=${created.body.id}`);
    expect(audit.body.items.map((entry: { action: string }) => entry.action)).toEqual(['plan.update', 'plan.create']);
    expect(audit.body.items[0].before.limits[0].limit).toBe(5);
    expect(audit.body.items[0].after.limits[0].limit).toBe(50);
    expect(audit.body.items[0].actor).toMatch(/^root_key:root_/);
    expect((await h.call('PATCH', '/v1/plans/plan_nope', { name: 'x' })).status).toBe(404);
    expect((await h.call('PATCH', `/v1/plans/${created.body.id}`, { limits: 'none' })).status).toBe(400);
    expect((await h.call('PATCH', `/v1/plans/${created.body.id}`, { name: 'dup' })).status).toBe(409);
  });

  it('DELETE is 409 while keys use the plan, 204 after, 404 again', async () => {
    const plan = await h.call('POST', '/v1/plans', { name: 'deleteme', limits: [burstLimit] });
    const key = await h.call('POST', '/v1/keys', { name: 'k', planId: plan.body.id });
    expect(key.status).toBe(201);
    const refused = await h.call('DELETE', `/v1/plans/${plan.body.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toContain('1 key');
    expect((await h.call('DELETE', `/v1/keys/${key.body.id}`)).status).toBe(204);
    expect((await h.call('DELETE', `/v1/plans/${plan.body.id}`)).status).toBe(204);
    expect((await h.call('DELETE', `/v1/plans/${plan.body.id}`)).status).toBe(404);
  });

  it('the old key of a finished rotation does not hold its plan: it is revoked with it', async () => {
    const plan = await h.call('POST', '/v1/plans', { name: 'rotated-away', limits: [burstLimit] });
    const old = await h.call('POST', '/v1/keys', { name: 'old', planId: plan.body.id });
    const inGrace = await h.call('POST', '/v1/keys', { name: 'in-grace', planId: plan.body.id });
    const successor = await h.call('POST', `/v1/keys/${old.body.id}/rotate`, { gracePeriodMs: 0 });
    const graceSuccessor = await h.call('POST', `/v1/keys/${inGrace.body.id}/rotate`, { gracePeriodMs: 3_600_000 });
    // The old key, past its grace, no longer counts; the other, still verifying in its grace, does.
    expect((await h.call('GET', `/v1/plans/${plan.body.id}`)).body.keyCount).toBe(3);
    expect((await h.call('DELETE', `/v1/keys/${successor.body.id}`)).status).toBe(204);
    expect((await h.call('DELETE', `/v1/keys/${graceSuccessor.body.id}`)).status).toBe(204);
    const refused = await h.call('DELETE', `/v1/plans/${plan.body.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toContain('used by 1 key;');
    expect((await h.call('DELETE', `/v1/keys/${inGrace.body.id}`)).status).toBe(204);
    expect((await h.call('GET', `/v1/plans/${plan.body.id}`)).body.keyCount).toBe(0);
    expect((await h.call('DELETE', `/v1/plans/${plan.body.id}`)).status).toBe(204);
    // It went with its plan, on the record: no key is left on a plan that does not exist.
    expect((await h.call('GET', `/v1/keys/${old.body.id}`)).status).toBe(404);
    expect((await h.call('POST', '/v1/keys/verify', { key: old.body.key })).body.code).toBe('NOT_FOUND');
    const audit = await h.call('GET', `/v1/audit?targetId=${old.body.id}`);
    expect(audit.body.items[0]).toMatchObject({ action: 'key.revoke', after: { reason: expect.stringContaining('grace period had ended') } });
  });

  it('answers 401 without a credential and with a wrong root key', async () => {
    expect((await http(`${h.api.url}/v1/plans`)).status).toBe(401);
    const wrong = await http(`${h.api.url}/v1/plans`, { token: 'tgr_notARealKey' });
    expect(wrong.status).toBe(401);
    expect(wrong.body.code).toBe('UNAUTHORIZED');
  });
});
