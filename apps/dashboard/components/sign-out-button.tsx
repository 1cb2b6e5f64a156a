'use client';

import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { api } from '@/lib/api-client';

export function SignOutButton() {
  const router = useRouter();
  const [pending, setPending] = useState(false);

  async function signOut() {
    setPending(true);
    try {
      await api.post('/v1/auth/logout');
    } catch {
      // Already signed out, or the API is down: either way, leave for the login page.
    }
    router.replace('/login');
    router.refresh();
  }

  return (
    <button type="button" className="button button--secondary button--small" onClick={signOut} disabled={pending}>
      {pending ? 'Signing out…' : 'Sign out'}
    </button>
  );
}
