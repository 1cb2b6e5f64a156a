import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TcpProxy } from '../../libs/nest-guard/src/tcp-proxy.test-util';
import { startTestApp, type TestApp } from '../support/app';
import { TEST_REDIS_URL } from '../support/test-env';
import { createTestDatabase, type TestDatabase } from '../support/database';

describe('GET /health and the problem+json envelope', () => {
  let db: TestDatabase;
  let api: TestApp;

  beforeAll(async () => {
    db = await createTestDatabase();
    api = await startTestApp(db.url);
  });
  afterAll(async () => {
    await api?.close();
    await db?.drop();
  });

  it('answers 200 with both stores up', async () => {
    const response = await fetch(`${api.url}/health`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok', postgres: 'up', redis: 'up', rateLimiting: { breaker: 'closed', invalidation: 'live' } });
  });

  it('answers unknown routes with a 404 problem carrying the request id', async () => {
    const response = await fetch(`${api.url}/v1/nothing-here`, { headers: { 'x-request-id': 'req-test-1' } });
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
    expect(response.headers.get('x-request-id')).toBe('req-test-1');
    const body: any = await response.json();
    expect(body).toMatchObject({ status: 404, code: 'NOT_FOUND', title: 'Not Found', requestId: 'req-test-1' });
    expect(body.type).toMatch(/^https:\/\//);
  });

  it('logs every request line with its request id', async () => {
    await fetch(`${api.url}/health`, { headers: { 'x-request-id': 'req-log-check' } });
    const lines = api.logs.flatMap((chunk) => chunk.trim().split('\n')).map((line) => JSON.parse(line)).filter((line) => line.reqId === 'req-log-check');
    expect(lines).toEqual([expect.objectContaining({ msg: 'request', method: 'GET', url: '/health', statusCode: 200 })]);
  });

  it('serves the OpenAPI document and its UI', async () => {
    const spec: any = await fetch(`${api.url}/docs-json`).then((r) => r.json());
    expect(spec.openapi).toBe('3.1.0');
    expect(spec.paths['/health'].get).toBeDefined();
    const page = await fetch(`${api.url}/docs`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('swagger-ui-bundle.js');
    const asset = await fetch(`${api.url}/docs/assets/swagger-ui-bundle.js`);
    expect(asset.status).toBe(200);
  });
});

describe('the committed OpenAPI document', () => {
  it('is exactly what the API serves (run `npm run openapi` after changing the contract)', async () => {
    const { readFile } = await import('node:fs/promises');
    const path = await import('node:path');
    const committed = JSON.parse(await readFile(path.resolve(__dirname, '../../openapi.json'), 'utf8'));
    const db = await createTestDatabase();
    const api = await startTestApp(db.url);
    try {
      const served = await fetch(`${api.url}/docs-json`).then((r) => r.json());
      expect(served).toEqual(committed);
    } finally {
      await api.close();
      await db.drop();
    }
  });
});

const ROOT_KEY = 'tgr_5toreDown5toreDown5toreDown5toreDown';
/** Admin routes that read Redis or Postgres: [method, path, body]. */
const STORE_ROUTES: [string, string, string?][] = [
  ['GET', '/v1/usage'],
  ['GET', '/v1/usage/top'],
  ['GET', '/v1/usage/export.csv'],
  ['POST', '/v1/auth/login', JSON.stringify({ email: 'nobody@example.com', password: 'wrong-password' })],
];

describe('GET /health when a store is down', () => {
  it('answers 503 naming Redis when Redis cannot be reached, and recovers by itself', async () => {
    // A TCP proxy in front of Redis that this test cuts: the API really loses its connection.
    const proxy = await TcpProxy.start(TEST_REDIS_URL);
    const db = await createTestDatabase();
    const api = await startTestApp(db.url, { REDIS_URL: proxy.url, TOLLGATE_ROOT_KEY: ROOT_KEY });
    try {
      expect((await fetch(`${api.url}/health`)).status).toBe(200);
      await proxy.cut();
      const down = await fetch(`${api.url}/health`);
      expect(down.status).toBe(503);
      expect(await down.json()).toMatchObject({ status: 'down', postgres: 'up', redis: 'down' });
      // Admin routes that need Redis answer 503 problem+json too, never a 500.
      for (const [method, path, body] of STORE_ROUTES) {
        const res = await fetch(`${api.url}${path}`, { method, headers: { authorization: `Bearer ${ROOT_KEY}`, ...(body ? { 'content-type': 'application/json' } : {}) }, body });
        expect(res.status, path).toBe(503);
        expect(res.headers.get('content-type'), path).toMatch(/application\/problem\+json/);
        expect(await res.json(), path).toMatchObject({ code: 'SERVICE_UNAVAILABLE', detail: expect.stringMatching(/Redis/) });
      }
      await proxy.restore();
      let status = 0;
      for (let i = 0; i < 50 && status !== 200; i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        status = (await fetch(`${api.url}/health`)).status;
      }
      expect(status).toBe(200);
    } finally {
      await proxy.cut();
      await api.close();
      await db.drop();
    }
  });

  it('answers 503 naming Postgres, on /health and on admin routes, when Postgres cannot be reached', async () => {
    const db = await createTestDatabase();
    const proxy = await TcpProxy.start(db.url);
    const viaProxy = new URL(db.url);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    const api = await startTestApp(viaProxy.toString(), { TOLLGATE_ROOT_KEY: ROOT_KEY });
    try {
      const routes: [string, string, string?][] = [['GET', '/v1/plans'], ['GET', '/v1/keys'], ['POST', '/v1/plans', JSON.stringify({ name: 'p', limits: [] })], ...STORE_ROUTES];
      for (const [method, path, body] of routes) {
        const res = await fetch(`${api.url}${path}`, { method, headers: { authorization: `Bearer ${ROOT_KEY}`, ...(body ? { 'content-type': 'application/json' } : {}) }, body });
        expect(res.status, `${path} before the cut`).toBeLessThan(500);
      }
      await proxy.cut();
      const health = await fetch(`${api.url}/health`);
      expect(health.status).toBe(503);
      expect(await health.json()).toMatchObject({ postgres: 'down' });
      for (const [method, path, body] of routes) {
        const res = await fetch(`${api.url}${path}`, { method, headers: { authorization: `Bearer ${ROOT_KEY}`, ...(body ? { 'content-type': 'application/json' } : {}) }, body });
        expect(res.status, path).toBe(503);
        expect(await res.json(), path).toMatchObject({ code: 'SERVICE_UNAVAILABLE', detail: expect.stringMatching(/Postgres/) });
      }
    } finally {
      await proxy.restore();
      await api.close();
      await proxy.cut();
      await db.drop();
    }
  }, 60_000);
});
