'use client';

import { useRouter } from 'next/navigation';
import { useRef, useState, type FormEvent } from 'react';
import { ApiProblem, api } from '@/lib/api-client';
import { safeReturnPath } from '@/lib/navigation';

type FormError = { message: string; fields: Partial<Record<'email' | 'password', string>> };

function toFormError(err: unknown): FormError {
  if (!(err instanceof ApiProblem)) return { message: 'Something went wrong. Try again.', fields: {} };
  let message = err.detail;
  if (err.status === 429 && err.retryAfter !== undefined && !/\d/.test(message)) {
    message = `${message} Try again in ${err.retryAfter} s.`;
  }
  return {
    message,
    fields: { email: err.fieldError('email'), password: err.fieldError('password') },
  };
}

export function LoginForm() {
  const router = useRouter();
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<FormError | null>(null);
  const alertRef = useRef<HTMLParagraphElement>(null);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (pending) return;
    const data = new FormData(event.currentTarget);
    setPending(true);
    setError(null);
    try {
      await api.post('/v1/auth/login', {
        email: String(data.get('email') ?? '').trim(),
        password: String(data.get('password') ?? ''),
      });
      // Read at submit time so the page itself stays static (no useSearchParams/Suspense).
      router.replace(safeReturnPath(new URLSearchParams(window.location.search).get('next')));
      router.refresh();
    } catch (err) {
      setError(toFormError(err));
      setPending(false);
      requestAnimationFrame(() => alertRef.current?.focus());
    }
  }

  return (
    // method="post": if submitted before hydration, credentials never end up in the URL.
    <form className="form" method="post" onSubmit={onSubmit}>
      {error && (
        <p id="login-error" className="alert" role="alert" tabIndex={-1} ref={alertRef}>
          {error.message}
        </p>
      )}
      <div className="field">
        <label className="label" htmlFor="email">
          Email
        </label>
        <input
          id="email"
          name="email"
          type="email"
          className="input"
          autoComplete="username"
          inputMode="email"
          autoCapitalize="none"
          spellCheck={false}
          required
          maxLength={254}
          aria-invalid={error?.fields.email ? true : undefined}
          aria-describedby={error?.fields.email ? 'email-error' : undefined}
        />
        {error?.fields.email && (
          <p id="email-error" className="field-error">
            {error.fields.email}
          </p>
        )}
      </div>
      <div className="field">
        <label className="label" htmlFor="password">
          Password
        </label>
        <input
          id="password"
          name="password"
          type="password"
          className="input"
          autoComplete="current-password"
          required
          maxLength={1024}
          aria-invalid={error?.fields.password ? true : undefined}
          aria-describedby={error?.fields.password ? 'password-error' : undefined}
        />
        {error?.fields.password && (
          <p id="password-error" className="field-error">
            {error.fields.password}
          </p>
        )}
      </div>
      <button type="submit" className="button button--block" disabled={pending}>
        {pending ? 'Signing in…' : 'Sign in'}
      </button>
    </form>
  );
}
