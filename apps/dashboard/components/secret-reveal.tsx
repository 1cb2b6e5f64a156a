import { CopyButton } from './copy-button';

/** What the secret is, for the warning and the accessible name: a key by default. */
export interface SecretKind {
  /** "key", "signing secret" */
  noun: string;
  /** What to do if it is lost. */
  ifLost: string;
  /** Accessible name of the box, e.g. "New API key". */
  label: string;
  testId: string;
}

const KEY: SecretKind = {
  noun: 'key',
  ifLost: 'Tollgate stores only a hash of it. If it is lost, rotate the key to get a new one.',
  label: 'New API key',
  testId: 'key-secret',
};

/** A secret shown once, right after creation or rotation, with the warning that goes with it. */
export function SecretReveal({ secret, note, kind = KEY }: { secret: string; note?: string; kind?: SecretKind }) {
  return (
    <div className="stack">
      <div className="alert alert--warning" role="alert">
        <p className="alert__title">Copy this {kind.noun} now: it will not be shown again.</p>
        <p style={{ margin: 0 }}>
          {kind.ifLost}
          {note ? ` ${note}` : ''}
        </p>
      </div>
      <div className="secret">
        <code data-testid={kind.testId} aria-label={kind.label}>
          {secret}
        </code>
        <CopyButton text={secret} />
      </div>
    </div>
  );
}
