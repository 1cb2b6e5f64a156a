import { CopyButton } from './copy-button';

/** A key secret shown once, right after creation or rotation, with the warning that goes with it. */
export function SecretReveal({ secret, note }: { secret: string; note?: string }) {
  return (
    <div className="stack">
      <div className="alert alert--warning" role="alert">
        <p className="alert__title">Copy this key now: it will not be shown again.</p>
        <p style={{ margin: 0 }}>Tollgate stores only a hash of it. If it is lost, rotate the key to get a new one.{note ? ` ${note}` : ''}</p>
      </div>
      <div className="secret">
        <code data-testid="key-secret" aria-label="New API key">
          {secret}
        </code>
        <CopyButton text={secret} />
      </div>
    </div>
  );
}
