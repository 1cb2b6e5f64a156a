'use client';

import { useCallback, useEffect, useRef, useState } from 'react';
import { api } from './api-client';
import { toProblemInfo, type ProblemInfo } from './problem';

/** `path` is the path `data` was fetched from: after `path` changes it names the old one until the new answer arrives. */
export type ResourceState<T> =
  | { status: 'loading'; data?: undefined; path?: undefined; problem?: undefined }
  | { status: 'ready'; data: T; path: string; problem?: undefined }
  | { status: 'error'; data?: T; path?: string; problem: ProblemInfo };

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
    api
      .get<T>(path, { signal: controller.signal })
      .then((data) => {
        lastData.current = { data, path };
        setState({ status: 'ready', data, path });
      })
      .catch((err: unknown) => {
        if (controller.signal.aborted) return;
        setState({ status: 'error', data: lastData.current?.data, path: lastData.current?.path, problem: toProblemInfo(err) });
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
