'use client';

import type { KeyWithSecret } from '@tollgate/contracts';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useState, type FormEvent } from 'react';
import { api } from '@/lib/api-client';
import { formatDateTime } from '@/lib/format';
import { useApiAction } from '@/lib/use-api-action';
import { FormField } from './form-field';
import { Modal } from './modal';
import { ProblemAlert } from './problem-alert';
import { SecretReveal } from './secret-reveal';

const GRACE_PERIODS = [
  { ms: 0, label: 'None: the old key stops working now' },
  { ms: 3_600_000, label: '1 hour' },
  { ms: 86_400_000, label: '24 hours' },
  { ms: 7 * 86_400_000, label: '7 days' },
  { ms: 30 * 86_400_000, label: '30 days' },
];

/** Issues a successor key; the old secret keeps working for the grace period. */
export function RotateKeyDialog({ open, keyId, keyName, onClose }: { open: boolean; keyId: string; keyName: string; onClose: () => void }) {
  const router = useRouter();
  const [grace, setGrace] = useState(86_400_000);
  const { pending, problem, setProblem, run } = useApiAction();
  const [result, setResult] = useState<{ key: KeyWithSecret; graceEndsAt: string } | null>(null);

  const close = () => {
    if (result) router.refresh();
    setResult(null);
    setProblem(null);
    onClose();
  };

  async function submit(event: FormEvent) {
    event.preventDefault();
    await run(async () => {
      const key = await api.post<KeyWithSecret>(`/v1/keys/${keyId}/rotate`, { gracePeriodMs: grace });
      setResult({ key, graceEndsAt: new Date(Date.now() + grace).toISOString() });
    });
  }

  return (
    <Modal open={open} title={result ? 'Key rotated' : `Rotate “${keyName}”`} onClose={close}>
      {result ? (
        <div className="stack">
          <SecretReveal secret={result.key.key} note={grace ? `The old key keeps working until ${formatDateTime(result.graceEndsAt)}.` : 'The old key no longer works.'} />
          <div className="form-actions">
            <Link className="button button--secondary" href={`/keys/${result.key.id}`} onClick={close}>
              Open the new key
            </Link>
            <button type="button" className="button" onClick={close}>
              Done
            </button>
          </div>
        </div>
      ) : (
        <form className="form" onSubmit={submit}>
          <p style={{ margin: 0 }}>A new secret is issued with the same plan, owner and limits. Give clients time to switch with a grace period.</p>
          <FormField id="rotate-grace" label="Grace period for the old key">
            <select id="rotate-grace" className="input" value={grace} onChange={(e) => setGrace(Number(e.target.value))}>
              {GRACE_PERIODS.map((g) => (
                <option key={g.ms} value={g.ms}>
                  {g.label}
                </option>
              ))}
            </select>
          </FormField>
          {problem && <ProblemAlert problem={problem} />}
          <div className="form-actions">
            <button type="button" className="button button--secondary" onClick={close}>
              Cancel
            </button>
            <button type="submit" className="button" disabled={pending}>
              {pending ? 'Rotating…' : 'Rotate key'}
            </button>
          </div>
        </form>
      )}
    </Modal>
  );
}
