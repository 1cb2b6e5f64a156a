'use client';

import { useCallback, useState } from 'react';
import { toProblemInfo, type ProblemInfo } from './problem';

/**
 * One write from a form or button: `pending` while it runs, and the API's problem (or a local
 * validation problem set with `setProblem`) to show in a `ProblemAlert`. `run` returns whether
 * the action succeeded; a thrown error becomes the problem.
 */
export function useApiAction(): {
  pending: boolean;
  problem: ProblemInfo | null;
  setProblem: (problem: ProblemInfo | null) => void;
  run: (action: () => Promise<void>) => Promise<boolean>;
} {
  const [pending, setPending] = useState(false);
  const [problem, setProblem] = useState<ProblemInfo | null>(null);

  const run = useCallback(async (action: () => Promise<void>) => {
    setPending(true);
    setProblem(null);
    try {
      await action();
      return true;
    } catch (err) {
      setProblem(toProblemInfo(err));
      return false;
    } finally {
      setPending(false);
    }
  }, []);

  return { pending, problem, setProblem, run };
}
