'use client';

import { useCallback, useEffect, useRef, useState } from 'react';
import { api } from './api-client';
import { toProblemInfo, type ProblemInfo } from './problem';

/** `path` is the path `data` was fetched from: after `path` changes it names the old one until the new answer arrives. */
export type ResourceState<T> =
  | { status: 'loading'; data?: undefined; path?: undefined; problem?: undefined }
  | { status: 'ready'; data: T; path: string; problem?: undefined }
  | { status: 'error'; data?: T; path?: string; problem: ProblemInfo };

/** A GET that has not answered by then is given up, so a hung API shows an error, not a page waiting forever. */
const TIMEOUT_MS = 15_000;

const TIMED_OUT: ProblemInfo = { status: 0, code: 'TIMEOUT', title: 'No answer', detail: `The API did not answer within ${TIMEOUT_MS / 1000} s.`, errors: [] };

/**
 * GETs `path` (through the /api proxy) whenever it changes, and again every `refreshMs` while the
 * tab is visible. Keeps the last good data during a refresh so charts do not flicker.
 */
export function useApiResource<T>(path: string | null, refreshMs?: number): { state: ResourceState<T>; reload: () => void } {
  const [state, setState] = useState<ResourceState<T>>({ status: 'loading' });
  const [tick, setTick] = useState(0);
  const lastData = useRef<{ data: T; path: string } | undefined>(undefined);
  const reload = useCallback(() => setTick((t) => t + 1), []);

  useEffect(() => {
    if (!path) return;
    const controller = new AbortController();
    const timeout = AbortSignal.timeout(TIMEOUT_MS);
    api
      .get<T>(path, { signal: AbortSignal.any([controller.signal, timeout]) })
      .then((data) => {
        lastData.current = { data, path };
        setState({ status: 'ready', data, path });
      })
      .catch((err: unknown) => {
        if (controller.signal.aborted) return;
        setState({ status: 'error', data: lastData.current?.data, path: lastData.current?.path, problem: timeout.aborted ? TIMED_OUT : toProblemInfo(err) });
      });
    return () => controller.abort();
  }, [path, tick]);

  useEffect(() => {
    if (!refreshMs) return;
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') reload();
    }, refreshMs);
    return () => clearInterval(timer);
  }, [refreshMs, reload]);

  return { state, reload };
}
