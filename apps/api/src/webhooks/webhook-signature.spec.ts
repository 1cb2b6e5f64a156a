import { describe, expect, it } from 'vitest';
import { newWebhookSecret, signPayload, verifySignature } from './webhook-signature';

describe('webhook signatures', () => {
  const secret = newWebhookSecret();
  const body = JSON.stringify({ type: 'quota.threshold', data: { keyId: 'key_1', threshold: 80 } });

  it('signs "t.body" with HMAC-SHA256 and verifies it', () => {
    const header = signPayload(secret, body, 1_800_000_000);
    expect(header).toMatch(/^t=1800000000,v1=[0-9a-f]{64}$/);
    expect(verifySignature(secret, body, header, 1_800_000_010)).toBe(true);
  });

  it('refuses a changed body, another secret, or a stale timestamp', () => {
    const header = signPayload(secret, body, 1_800_000_000);
    expect(verifySignature(secret, body + ' ', header, 1_800_000_000)).toBe(false);
    expect(verifySignature(newWebhookSecret(), body, header, 1_800_000_000)).toBe(false);
    expect(verifySignature(secret, body, header, 1_800_001_000)).toBe(false);
    expect(verifySignature(secret, body, 'garbage', 1_800_000_000)).toBe(false);
  });
});

describe('delivery retries', async () => {
  const { nextRetryDelay } = await import('./webhook-delivery.worker');
  it('double per attempt from the base, capped at an hour, with ±20 % jitter', () => {
    expect(nextRetryDelay(1, 10_000, () => 0.5)).toBe(10_000);
    expect(nextRetryDelay(2, 10_000, () => 0.5)).toBe(20_000);
    expect(nextRetryDelay(5, 10_000, () => 0.5)).toBe(160_000);
    expect(nextRetryDelay(30, 10_000, () => 0.5)).toBe(3_600_000);
    expect(nextRetryDelay(1, 10_000, () => 0)).toBe(8000);
    expect(nextRetryDelay(1, 10_000, () => 1)).toBe(12_000);
  });
});
