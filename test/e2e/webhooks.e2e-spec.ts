import { createServer, type IncomingMessage, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Redis from 'ioredis';
import { RedisStore } from '@tollgate/rate-limit';
import { USAGE_METER_PREFIX } from '@tollgate/nest-guard';
import { UsageFlusher } from '../../apps/api/src/usage/usage-flusher';
import { KeyExpiryScanner } from '../../apps/api/src/webhooks/key-expiry.scanner';
import { WebhookDeliveryWorker } from '../../apps/api/src/webhooks/webhook-delivery.worker';
import { TEST_REDIS_URL } from '../support/test-env';
import { verifySignature } from '../../apps/api/src/webhooks/webhook-signature';
import { burstLimit, startAdminHarness, type AdminHarness } from '../support/admin';
import { waitFor } from '../support/wait-for';

interface Received {
  headers: IncomingMessage['headers'];
  body: string;
  json: any;
}

/** A webhook receiver: records every request; the first `failFirst` answers are 500s. */
async function startReceiver(failFirst = 0): Promise<{ url: string; received: Received[]; close: () => Promise<void> }> {
  const received: Received[] = [];
  let failures = failFirst;
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      if (failures > 0) {
        failures -= 1;
        response.writeHead(500).end();
        return;
      }
      received.push({ headers: request.headers, body, json: JSON.parse(body) });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { url: `http://127.0.0.1:${port}/hook`, received, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

const DAY = 86_400_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('webhooks', () => {
  let h: AdminHarness;
  beforeAll(async () => {
    h = await startAdminHarness({ WEBHOOK_POLL_MS: '50', WEBHOOK_RETRY_BASE_MS: '200' });
  });
  afterAll(async () => h?.close());

  it('POST /v1/webhooks returns the signing secret once (201); list, get, 400s and 404s', async () => {
    const created = await h.call('POST', '/v1/webhooks', { url: 'https://example.test/hook', events: ['key.expiring'] });
    expect(created.status).toBe(201);
    expect(created.body.secret).toMatch(/^whsec_/);
    expect(created.body.thresholds).toEqual([80, 90, 100]);
    const listed = await h.call('GET', '/v1/webhooks');
    expect(listed.body.items.find((item: { id: string }) => item.id === created.body.id).secret).toBeUndefined();
    expect((await h.call('GET', `/v1/webhooks/${created.body.id}`)).status).toBe(200);
    const bad = await h.call('POST', '/v1/webhooks', { url: 'ftp://x', events: ['nope'], thresholds: [0, 101] });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { path: string }) => e.path)).toEqual(expect.arrayContaining(['url', 'events.0', 'thresholds.0', 'thresholds.1']));
    expect((await h.call('DELETE', `/v1/webhooks/${created.body.id}`)).status).toBe(204);
    expect((await h.call('GET', `/v1/webhooks/${created.body.id}`)).status).toBe(404);
    expect((await h.call('DELETE', `/v1/webhooks/${created.body.id}`)).status).toBe(404);
  });

  it('a receiver sees each quota threshold once per period, signed, even when the first attempt fails', async () => {
    const receiver = await startReceiver(1);
    try {
      const hook = await h.call('POST', '/v1/webhooks', { url: receiver.url, events: ['quota.threshold'], thresholds: [50, 100] });
      const plan = await h.call('POST', '/v1/plans', { name: 'quota-hook', limits: [{ ...burstLimit, limit: 100, burst: 100 }], quota: { limit: 4, period: 'day' } });
      const key = await h.call('POST', '/v1/keys', { name: 'hooked', planId: plan.body.id });
      const codes: string[] = [];
      for (let i = 0; i < 7; i += 1) codes.push((await h.call('POST', '/v1/keys/verify', { key: key.body.key })).body.code);
      expect(codes).toEqual(['VALID', 'VALID', 'VALID', 'VALID', 'QUOTA_EXCEEDED', 'QUOTA_EXCEEDED', 'QUOTA_EXCEEDED']);

      await waitFor(() => receiver.received.length >= 2, { what: 'two threshold deliveries' });
      await sleep(600);
      expect(receiver.received).toHaveLength(2);
      const thresholds = receiver.received.map((r) => r.json.data.threshold).sort((a, b) => a - b);
      expect(thresholds).toEqual([50, 100]);
      for (const request of receiver.received) {
        expect(request.json.type).toBe('quota.threshold');
        expect(request.json.data).toMatchObject({ keyId: key.body.id, limit: 4 });
        expect(request.headers['tollgate-event']).toBe('quota.threshold');
        expect(verifySignature(hook.body.secret, request.body, String(request.headers['tollgate-signature']), Math.floor(Date.now() / 1000))).toBe(true);
      }

      const deliveries = await h.call('GET', `/v1/webhooks/${hook.body.id}/deliveries`);
      expect(deliveries.body.items).toHaveLength(2);
      expect(deliveries.body.items.every((d: { status: string }) => d.status === 'succeeded')).toBe(true);
      expect(deliveries.body.items.map((d: { attempts: number }) => d.attempts).sort()).toEqual([1, 2]);
    } finally {
      await receiver.close();
    }
  });

  it('key.expiring: 7 days and 1 day before, each once', async () => {
    const receiver = await startReceiver();
    try {
      await h.call('POST', '/v1/webhooks', { url: receiver.url, events: ['key.expiring'] });
      const plan = await h.call('POST', '/v1/plans', { name: 'expiring', limits: [burstLimit] });
      const inThreeDays = await h.call('POST', '/v1/keys', { name: 'three days', planId: plan.body.id, expiresAt: new Date(Date.now() + 3 * 86_400_000).toISOString() });
      const inTwelveHours = await h.call('POST', '/v1/keys', { name: 'twelve hours', planId: plan.body.id, expiresAt: new Date(Date.now() + 12 * 3_600_000).toISOString() });
      await h.call('POST', '/v1/keys', { name: 'next month', planId: plan.body.id, expiresAt: new Date(Date.now() + 30 * 86_400_000).toISOString() });
      const scanner = h.api.app.get(KeyExpiryScanner);
      await scanner.scan();
      await scanner.scan();
      await waitFor(() => receiver.received.length >= 2, { what: 'two expiry notices' });
      await sleep(400);
      const notices = receiver.received.map((r) => `${r.json.data.keyId}:${r.json.data.notice}`).sort();
      expect(notices).toEqual([`${inThreeDays.body.id}:7d`, `${inTwelveHours.body.id}:1d`].sort());
      // two days later the three-day key is inside its last day: the 1-day notice, once
      await scanner.scan(Date.now() + 2.5 * 86_400_000);
      await waitFor(() => receiver.received.length >= 3, { what: 'the 1-day notice' });
      expect(receiver.received[2].json.data).toMatchObject({ keyId: inThreeDays.body.id, notice: '1d' });
    } finally {
      await receiver.close();
    }
  });

  it('key.expiring for a key rotated away: the end of its grace period is its expiry (7d notice for a 2-day grace)', async () => {
    const receiver = await startReceiver();
    try {
      await h.call('POST', '/v1/webhooks', { url: receiver.url, events: ['key.expiring'] });
      const plan = await h.call('POST', '/v1/plans', { name: 'rotating', limits: [burstLimit] });
      const old = await h.call('POST', '/v1/keys', { name: 'rotated', planId: plan.body.id, expiresAt: new Date(Date.now() + 60 * DAY).toISOString() });
      const rotated = await h.call('POST', `/v1/keys/${old.body.id}/rotate`, { gracePeriodMs: 2 * DAY });
      expect(rotated.status).toBe(201);
      const graceEnd = (await h.call('GET', `/v1/keys/${old.body.id}`)).body.expiresAt;
      expect(Date.parse(graceEnd) - Date.now()).toBeGreaterThan(2 * DAY - 60_000);

      const scanner = h.api.app.get(KeyExpiryScanner);
      await Promise.all([scanner.scan(), scanner.scan()]); // chained, not overlapping; the second finds it queued
      const mine = () => receiver.received.filter((r) => r.json.data.keyId === old.body.id || r.json.data.keyId === rotated.body.id);
      await waitFor(() => mine().length >= 1, { what: 'the 7-day notice of the rotated-away key' });
      await sleep(400);
      expect(mine().map((r) => r.json.data)).toEqual([{ keyId: old.body.id, name: 'rotated', ownerId: null, expiresAt: graceEnd, notice: '7d' }]);

      // A day and a half later the grace ends within a day: the 1-day notice, once; the successor (60 days) gets none.
      await scanner.scan(Date.now() + 1.5 * DAY);
      await scanner.scan(Date.now() + 1.5 * DAY);
      await waitFor(() => mine().length >= 2, { what: 'the 1-day notice of the rotated-away key' });
      await sleep(400);
      expect(mine().map((r) => `${r.json.data.keyId}:${r.json.data.notice}`)).toEqual([`${old.body.id}:7d`, `${old.body.id}:1d`]);
    } finally {
      await receiver.close();
    }
  });

  it('ratelimit.exceeded: once per key per minute, with the minute\'s exact rejection count', async () => {
    const receiver = await startReceiver();
    const redis = new Redis(TEST_REDIS_URL);
    try {
      await h.call('POST', '/v1/webhooks', { url: receiver.url, events: ['ratelimit.exceeded'] });
      const plan = await h.call('POST', '/v1/plans', { name: 'noisy', limits: [burstLimit] });
      const key = await h.call('POST', '/v1/keys', { name: 'noisy', planId: plan.body.id });
      // Decisions in a minute that has already closed, through the real engine and meter.
      const store = new RedisStore(redis, { prefix: h.api.env.REDIS_KEY_PREFIX, testClock: true });
      const minute = Math.floor(Date.now() / 60_000) * 60_000 - 5 * 60_000;
      const limits = [{ name: 'burst', identity: `key:${key.body.id}`, params: { algorithm: 'fixed_window' as const, limit: 2, windowMs: 60_000 } }];
      const codes: string[] = [];
      for (let i = 0; i < 7; i += 1) codes.push((await store.check({ limits, meter: { keyPrefix: USAGE_METER_PREFIX, member: key.body.id }, nowMs: minute + 1000 + i })).code);
      expect(codes.filter((code) => code === 'RATE_LIMITED')).toHaveLength(5);
      const flusher = h.api.app.get(UsageFlusher);
      await flusher.runOnce();
      await flusher.runOnce();
      await waitFor(() => receiver.received.length >= 1, { what: 'the ratelimit.exceeded delivery' });
      await sleep(400);
      expect(receiver.received).toHaveLength(1);
      expect(receiver.received[0].json).toMatchObject({ type: 'ratelimit.exceeded', data: { keyId: key.body.id, minuteStart: new Date(minute).toISOString(), rejected: 5, admitted: 2 } });
    } finally {
      redis.disconnect();
      await receiver.close();
    }
  });

  it('ratelimit.exceeded for a minute flushed in two parts: one event holding both parts while it is unsent; later parts add nothing', async () => {
    const receiver = await startReceiver();
    const redis = new Redis(TEST_REDIS_URL);
    const worker = h.api.app.get(WebhookDeliveryWorker);
    // Hold the sender so both parts are committed before the first attempt; sent by hand below.
    await worker.stop();
    try {
      const hook = await h.call('POST', '/v1/webhooks', { url: receiver.url, events: ['ratelimit.exceeded'] });
      const plan = await h.call('POST', '/v1/plans', { name: 'late', limits: [burstLimit] });
      const key = await h.call('POST', '/v1/keys', { name: 'late', planId: plan.body.id });
      const store = new RedisStore(redis, { prefix: h.api.env.REDIS_KEY_PREFIX, testClock: true });
      const minute = Math.floor(Date.now() / 60_000) * 60_000 - 7 * 60_000;
      const limits = [{ name: 'burst', identity: `key:${key.body.id}`, params: { algorithm: 'fixed_window' as const, limit: 2, windowMs: 60_000 } }];
      const decide = async (count: number, at: number) => {
        const codes: string[] = [];
        for (let i = 0; i < count; i += 1) codes.push((await store.check({ limits, meter: { keyPrefix: USAGE_METER_PREFIX, member: key.body.id }, nowMs: at + i })).code);
        return codes;
      };
      const flusher = h.api.app.get(UsageFlusher);
      const deliveries = async () => (await h.call('GET', `/v1/webhooks/${hook.body.id}/deliveries`)).body.items as { status: string; attempts: number; payload: Record<string, unknown> }[];

      // Part 1: 2 admitted, 2 rejected, flushed.
      expect(await decide(4, minute + 1000)).toEqual(['VALID', 'VALID', 'RATE_LIMITED', 'RATE_LIMITED']);
      await flusher.runOnce();
      await flusher.runOnce();
      expect((await deliveries()).map((d) => d.payload)).toEqual([{ keyId: key.body.id, minuteStart: new Date(minute).toISOString(), rejected: 2, admitted: 2 }]);
      // Part 2: decisions for the same (already claimed and committed) minute arrive late; flushed separately.
      expect(await decide(3, minute + 40_000)).toEqual(['RATE_LIMITED', 'RATE_LIMITED', 'RATE_LIMITED']);
      await flusher.runOnce();
      await flusher.runOnce();
      const merged = await deliveries();
      expect(merged).toHaveLength(1);
      expect(merged[0]).toMatchObject({ status: 'pending', attempts: 0, payload: { rejected: 5, admitted: 2 } });

      await waitFor(async () => (await worker.tick(), receiver.received.length >= 1), { what: 'the ratelimit.exceeded delivery' });
      expect(receiver.received).toHaveLength(1);
      expect(receiver.received[0].json).toMatchObject({ type: 'ratelimit.exceeded', data: { keyId: key.body.id, minuteStart: new Date(minute).toISOString(), rejected: 5, admitted: 2 } });

      // Part 3, after the event went out: counted in usage, but no second event and the sent one is unchanged.
      await decide(1, minute + 50_000);
      await flusher.runOnce();
      await flusher.runOnce();
      const after = await deliveries();
      expect(after).toHaveLength(1);
      expect(after[0]).toMatchObject({ status: 'succeeded', payload: { rejected: 5, admitted: 2 } });
      const usage = await h.call('GET', `/v1/usage?keyId=${key.body.id}&granularity=minute&from=${new Date(minute).toISOString()}&to=${new Date(minute + 60_000).toISOString()}`);
      expect(usage.body.totals).toMatchObject({ valid: 2, rateLimited: 6 });
      await worker.tick();
      expect(receiver.received).toHaveLength(1);
      await h.call('DELETE', `/v1/webhooks/${hook.body.id}`);
    } finally {
      worker.start();
      redis.disconnect();
      await receiver.close();
    }
  });
});
