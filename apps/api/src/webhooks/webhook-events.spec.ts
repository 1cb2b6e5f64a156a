import { describe, expect, it } from 'vitest';
import type { VerificationResult } from '@tollgate/nest-guard';
import { WebhookEvents } from './webhook-events';
import type { Subscription, WebhooksRepository } from './webhooks.repository';

interface Queued {
  webhookIds: string[];
  event: string;
  dedupeKey: string;
  payload: { threshold: number; used: number; periodEndsAt: string };
}

const DAY = 86_400_000;
const PERIOD_1 = Date.UTC(2026, 5, 16);
const PERIOD_2 = PERIOD_1 + DAY;

/** WebhookEvents on a fake repository that records what gets queued. */
async function eventsWith(subscriptions: Subscription[], failEnqueue = () => false) {
  const queued: Queued[] = [];
  const repository = {
    subscriptions: async () => subscriptions,
    enqueue: async (webhookIds: string[], event: string, dedupeKey: string, payload: unknown) => {
      if (failEnqueue()) throw new Error('database down');
      queued.push({ webhookIds, event, dedupeKey, payload: payload as Queued['payload'] });
      return webhookIds.length;
    },
  } as unknown as WebhooksRepository;
  const events = new WebhookEvents(repository);
  await events.refresh();
  return { events, queued };
}

function decision(used: number, limit: number, resetAt: number, keyId = 'key_a'): VerificationResult {
  return { valid: used <= limit, code: used <= limit ? 'VALID' : 'QUOTA_EXCEEDED', keyId, ownerId: 'acme', planId: 'plan_1', limits: [], quota: { limit, remaining: Math.max(0, limit - used), resetAt }, nowMs: resetAt - DAY / 2 };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('WebhookEvents: quota.threshold', () => {
  it('each threshold once per period, to the webhooks that asked for it; a new period re-arms them all', async () => {
    const { events, queued } = await eventsWith([
      { id: 'wh_a', events: ['quota.threshold'], thresholds: [80, 100] },
      { id: 'wh_b', events: ['quota.threshold', 'key.expiring'], thresholds: [50, 100] },
      { id: 'wh_c', events: ['key.expiring'], thresholds: [10] },
    ]);
    for (let used = 1; used <= 12; used++) events.onDecision(decision(used, 10, PERIOD_1));
    await flush();
    expect(queued.map((q) => [q.payload.threshold, q.webhookIds, q.dedupeKey])).toEqual([
      [50, ['wh_b'], `quota.threshold:key_a:${PERIOD_1}:50`],
      [80, ['wh_a'], `quota.threshold:key_a:${PERIOD_1}:80`],
      [100, ['wh_a', 'wh_b'], `quota.threshold:key_a:${PERIOD_1}:100`],
    ]);
    expect(queued.map((q) => q.payload.used)).toEqual([5, 8, 10]);

    // The next day (a new resetAt): the same thresholds fire again, with the new period end in the dedupe key.
    queued.length = 0;
    for (let used = 1; used <= 9; used++) events.onDecision(decision(used, 10, PERIOD_2));
    await flush();
    expect(queued.map((q) => q.dedupeKey)).toEqual([`quota.threshold:key_a:${PERIOD_2}:50`, `quota.threshold:key_a:${PERIOD_2}:80`]);
    expect(queued[0].payload.periodEndsAt).toBe(new Date(PERIOD_2).toISOString());
  });

  it('one decision that jumps past several thresholds queues each of them; other keys are independent', async () => {
    const { events, queued } = await eventsWith([{ id: 'wh_a', events: ['quota.threshold'], thresholds: [80, 90, 100] }]);
    events.onDecision(decision(95, 100, PERIOD_1, 'key_a'));
    events.onDecision(decision(85, 100, PERIOD_1, 'key_b'));
    events.onDecision(decision(96, 100, PERIOD_1, 'key_a'));
    await flush();
    expect(queued.map((q) => q.dedupeKey)).toEqual([
      `quota.threshold:key_a:${PERIOD_1}:80`,
      `quota.threshold:key_a:${PERIOD_1}:90`,
      `quota.threshold:key_b:${PERIOD_1}:80`,
    ]);
  });

  it('a failed insert re-arms the threshold so a later decision queues it again', async () => {
    let fail = true;
    const { events, queued } = await eventsWith([{ id: 'wh_a', events: ['quota.threshold'], thresholds: [50] }], () => fail);
    events.onDecision(decision(6, 10, PERIOD_1));
    await flush();
    expect(queued).toHaveLength(0);
    fail = false;
    events.onDecision(decision(7, 10, PERIOD_1));
    events.onDecision(decision(8, 10, PERIOD_1));
    await flush();
    expect(queued.map((q) => q.payload.used)).toEqual([7]);
  });

  it('decisions without a quota, without a key or without quota subscribers do nothing', async () => {
    const { events, queued } = await eventsWith([{ id: 'wh_a', events: ['key.expiring'], thresholds: [50] }]);
    events.onDecision(decision(10, 10, PERIOD_1));
    events.onDecision({ valid: false, code: 'NOT_FOUND', limits: [], nowMs: PERIOD_1 });
    await flush();
    expect(queued).toHaveLength(0);
    events.emit('key.expiring', 'key.expiring:key_a:x:7d', { keyId: 'key_a' });
    events.emit('key.expiring', 'key.expiring:key_a:x:7d', { keyId: 'key_a' });
    await flush();
    expect(queued.map((q) => [q.event, q.webhookIds])).toEqual([['key.expiring', ['wh_a']]]);
  });
});
