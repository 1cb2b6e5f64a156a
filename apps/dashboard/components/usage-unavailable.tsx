import type { ProblemInfo } from '@/lib/problem';
import { EmptyState } from './empty-state';
import { ProblemAlert } from './problem-alert';

/** A usage endpoint failed: a missing endpoint (404) is an empty state, anything else an error. */
export function UsageUnavailable({ problem, what }: { problem: ProblemInfo; what: string }) {
  if (problem.status === 404) {
    return (
      <EmptyState title={`${what} is not available`}>
        This API server does not serve usage data yet. Traffic is still metered; it will show here once the usage API is running.
      </EmptyState>
    );
  }
  return <ProblemAlert problem={problem} title={`${what} could not be loaded.`} />;
}
