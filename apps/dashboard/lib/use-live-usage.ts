'use client';

import { useCallback, useEffect, useState } from 'react';
import { ApiProblem, navigateToLogin } from './api-client';
import { BROWSER_API_BASE } from './config';
import { toProblemInfo, type ProblemInfo } from './problem';
import { emptyCounts, OUTCOMES, parseStreamEvent, type Counts, type UsagePoint } from './usage';

/** `disconnected`: the stream closed for good (EventSource gave up); `reconnect()` opens a new one. */
export type LiveStatus = 'off' | 'connecting' | 'open' | 'disconnected';

/** Seconds of history the live chart keeps. */
export const LIVE_WINDOW_S = 60;

export interface LiveUsage {
  status: LiveStatus;
  points: UsagePoint[];
  /** Why the stream closed, when the API said (its problem+json), or the network failed. */
  problem: ProblemInfo | null;
  reconnect: () => void;
}

/**
 * EventSource hides the status and body of a refused stream: ask again with fetch to get the
 * API's problem+json (a 2xx answer is aborted at once). A 401 goes to the login page.
 */
async function streamProblem(url: string): Promise<ProblemInfo | null> {
  const controller = new AbortController();
  try {
    const res = await fetch(url, { headers: { accept: 'text/event-stream' }, credentials: 'same-origin', cache: 'no-store', signal: controller.signal });
    if (res.ok) return null;
    if (res.status === 401) navigateToLogin();
    return toProblemInfo(await ApiProblem.fromResponse(res));
  } catch (err) {
    return toProblemInfo(ApiProblem.network(err));
  } finally {
    controller.abort();
  }
}

/**
 * Per-second counts from GET /v1/usage/stream (Server-Sent Events through the /api proxy), the
 * last 60 s of them, while `enabled`. EventSource retries a dropped connection by itself; when it
 * gives up (the answer was not a stream), the status is `disconnected` until `reconnect()`.
 */
export function useLiveUsage(enabled: boolean, keyId?: string): LiveUsage {
  const [status, setStatus] = useState<LiveStatus>('off');
  const [problem, setProblem] = useState<ProblemInfo | null>(null);
  const [attempt, setAttempt] = useState(0);
  const [buckets, setBuckets] = useState<Map<number, Counts>>(() => new Map());
  const [now, setNow] = useState(() => Math.floor(Date.now() / 1000) * 1000);
  const reconnect = useCallback(() => setAttempt((n) => n + 1), []);

  useEffect(() => {
    if (!enabled) {
      setStatus('off');
      setProblem(null);
      return;
    }
    setStatus('connecting');
    setProblem(null);
    setBuckets(new Map());
    const url = `${BROWSER_API_BASE}/v1/usage/stream${keyId ? `?keyId=${encodeURIComponent(keyId)}` : ''}`;
    const source = new EventSource(url);
    let closed = false;
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
    // The API ends a stream whose session was logged out or expired meanwhile: to the login page.
    source.addEventListener('unauthorized', () => {
      closed = true;
      source.close();
      navigateToLogin();
    });
    source.onerror = () => {
      if (source.readyState !== EventSource.CLOSED) {
        setStatus('connecting');
        return;
      }
      setStatus('disconnected');
      void streamProblem(url).then((found) => {
        if (!closed) setProblem(found);
      });
    };
    const timer = setInterval(() => setNow(Math.floor(Date.now() / 1000) * 1000), 1000);
    return () => {
      closed = true;
      source.close();
      clearInterval(timer);
    };
  }, [enabled, keyId, attempt]);

  const points: UsagePoint[] = [];
  if (enabled) {
    for (let ts = now - (LIVE_WINDOW_S - 1) * 1000; ts <= now; ts += 1000) {
      points.push({ ts: new Date(ts).toISOString(), ...(buckets.get(ts) ?? emptyCounts()) });
    }
  }
  return { status, points, problem, reconnect };
}
