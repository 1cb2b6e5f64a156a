'use client';

import { useEffect } from 'react';

/** Last resort for a page that threw: say so and offer a retry, never a blank screen. */
export default function PageError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  useEffect(() => {
    console.error(error);
  }, [error]);
  return (
    <div className="card stack">
      <div className="alert" role="alert">
        <p className="alert__title">This page could not be shown.</p>
        <p style={{ margin: 0 }}>Something went wrong while loading it. {error.digest ? `(Reference ${error.digest})` : ''}</p>
      </div>
      <div>
        <button type="button" className="button" onClick={reset}>
          Try again
        </button>
      </div>
    </div>
  );
}
