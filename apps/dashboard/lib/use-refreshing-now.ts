'use client';

import { useCallback, useEffect, useState } from 'react';

/**
 * "Now", moved forward every `refreshMs` while the tab is visible (and not `paused`), for panels
 * that show a window ending now: each tick is a new from/to, so the window slides instead of
 * growing. `restart()` moves it to now at once (e.g. when the range changes).
 */
export function useRefreshingNow(refreshMs: number, paused = false): { now: number; restart: () => void } {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (paused) return;
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') setNow(Date.now());
    }, refreshMs);
    return () => clearInterval(timer);
  }, [paused, refreshMs]);
  const restart = useCallback(() => setNow(Date.now()), []);
  return { now, restart };
}
