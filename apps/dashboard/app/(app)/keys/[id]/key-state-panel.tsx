'use client';

import type { KeyState } from '@tollgate/contracts';
import { LoadingState } from '@/components/loading-state';
import { ProblemAlert } from '@/components/problem-alert';
import { formatAlgorithm, formatDateTime, formatDuration, formatNumber } from '@/lib/format';
import { useApiResource } from '@/lib/use-api-resource';

/**
 * Where the key's limits and quota stand now (GET /v1/keys/:id/state, which charges nothing):
 * the answer to "why is this customer getting 429s?". Refreshed with the usage panel's rhythm.
 */
export function KeyStatePanel({ keyId, refreshMs = 5000 }: { keyId: string; refreshMs?: number }) {
  const { state } = useApiResource<KeyState>(`/v1/keys/${encodeURIComponent(keyId)}/state`, refreshMs);
  return (
    <section className="card stack" aria-labelledby="key-state-title" data-testid="key-state">
      <h2 className="section-title" id="key-state-title">
        Right now
      </h2>
      {state.status === 'error' && <ProblemAlert problem={state.problem} title={state.data ? 'Could not refresh: showing the last reading.' : 'The current state could not be read.'} />}
      {state.status === 'loading' && <LoadingState label="Reading the counters…" />}
      {state.data && <KeyStateTable state={state.data} />}
    </section>
  );
}

/** A shared counter says so, or an unused key's room would look like its own use. */
const SCOPE_LABELS: Record<KeyState['limits'][number]['scope'], string> = {
  key: 'this key',
  owner: 'owner (all its keys)',
  global: 'plan (every key)',
};

function KeyStateTable({ state }: { state: KeyState }) {
  const quota = state.quota;
  return (
    <>
      {quota && (
        <p style={{ margin: 0 }} data-testid="key-quota-use">
          {quota.remaining > 0 ? (
            <>
              Quota: <strong>{formatNumber(quota.limit - quota.remaining)}</strong> of {formatNumber(quota.limit)} used ({formatNumber(quota.remaining)} left), resets {formatDateTime(quota.resetAt)}.
            </>
          ) : (
            // Use can exceed a quota that was lowered after it: the API says only that none is left.
            <>
              Quota: <strong>spent</strong> (all {formatNumber(quota.limit)}, or more if it was lowered since), resets {formatDateTime(quota.resetAt)}.
            </>
          )}
        </p>
      )}
      {state.limits.length > 0 ? (
        <div className="table-wrap">
          <table className="table">
            <caption className="visually-hidden">Remaining room of each rate limit</caption>
            <thead>
              <tr>
                <th scope="col">Limit</th>
                <th scope="col">Counted per</th>
                <th scope="col">Room left</th>
                <th scope="col">Full again in</th>
              </tr>
            </thead>
            <tbody>
              {state.limits.map((limit) => (
                <tr key={limit.name} data-testid={`key-state-${limit.name}`}>
                  <td>
                    <span className="mono">{limit.name}</span>
                    <div className="muted small">
                      {formatNumber(limit.limit)} per {formatDuration(limit.windowMs)} · {formatAlgorithm(limit.algorithm)}
                    </div>
                  </td>
                  <td>{SCOPE_LABELS[limit.scope]}</td>
                  <td>
                    {formatNumber(limit.remaining)} of {formatNumber(limit.capacity)}
                    {limit.remaining === 0 && <span className="badge badge--danger" style={{ marginLeft: 8 }}>spent</span>}
                  </td>
                  {/* A fixed window's reset is its end, used or not: nothing to wait for while it is full. */}
                  <td>{limit.resetMs > 0 && limit.remaining < limit.capacity ? formatDuration(limit.resetMs) : '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : (
        !quota && <p className="hint">This key has no rate limits and no quota.</p>
      )}
      <p className="hint" style={{ margin: 0 }}>
        Read {formatDateTime(state.at)}, without counting as a request.
      </p>
    </>
  );
}
