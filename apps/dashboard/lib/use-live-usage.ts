'use client';

import { useEffect, useState } from 'react';
import { api, ApiProblem, redirectToLogin } from './api-client';
import { BROWSER_API_BASE } from './config';
import { emptyCounts, OUTCOMES, parseStreamEvent, type Counts, type UsagePoint } from './usage';

export type LiveStatus = 'off' | 'connecting' | 'open' | 'unavailable';

/** Seconds of history the live chart keeps. */
export const LIVE_WINDOW_S = 60;

/**
 * Per-second counts from GET /v1/usage/stream (Server-Sent Events through the /api proxy), the
 * last 60 s of them, while `enabled`. EventSource reconnects by itself after a dropped connection.
 */
export function useLiveUsage(enabled: boolean, keyId?: string): { status: LiveStatus; points: UsagePoint[] } {
  const [status, setStatus] = useState<LiveStatus>('off');
  const [buckets, setBuckets] = useState<Map<number, Counts>>(() => new Map());
  const [now, setNow] = useState(() => Math.floor(Date.now() / 1000) * 1000);

  useEffect(() => {
    if (!enabled) {
      setStatus('off');
      return;
    }
    setStatus('connecting');
    setBuckets(new Map());
    const source = new EventSource(`${BROWSER_API_BASE}/v1/usage/stream${keyId ? `?keyId=${encodeURIComponent(keyId)}` : ''}`);
    const onData = (event: MessageEvent<string>) => {
      const parsed = parseStreamEvent(event.data);
      if (!parsed) return;
      const second = Math.floor(parsed.ts / 1000) * 1000;
      setBuckets((previous) => {
        const next = new Map(previous);
        const bucket = { ...(next.get(second) ?? emptyCounts()) };
        for (const outcome of OUTCOMES) bucket[outcome] += parsed.counts[outcome];
        next.set(second, bucket);
        for (const ts of next.keys()) if (ts < second - LIVE_WINDOW_S * 1000) next.delete(ts);
        return next;
      });
    };
    source.onopen = () => setStatus('open');
    source.onmessage = onData;
    source.onerror = () => {
      if (source.readyState !== EventSource.CLOSED) {
        setStatus('connecting');
        return;
      }
      setStatus('unavailable');
      // EventSource hides the status code: ask whether the session expired.
      api.get('/v1/auth/me').catch((err: unknown) => {
        if (err instanceof ApiProblem && err.status === 401) redirectToLogin();
      });
    };
    const timer = setInterval(() => setNow(Math.floor(Date.now() / 1000) * 1000), 1000);
    return () => {
      source.close();
      clearInterval(timer);
    };
  }, [enabled, keyId]);

  const points: UsagePoint[] = [];
  if (enabled) {
    for (let ts = now - (LIVE_WINDOW_S - 1) * 1000; ts <= now; ts += 1000) {
      points.push({ ts: new Date(ts).toISOString(), ...(buckets.get(ts) ?? emptyCounts()) });
    }
  }
  return { status, points };
}
