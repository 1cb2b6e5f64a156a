/**
 * The signed-in user for the current request, fetched once (React `cache`) however many Server
 * Components ask. Without a session, a redirect to /login that returns to the requested page.
 */
import type { Me } from '@tollgate/contracts';
import { cache } from 'react';
import { redirectToLogin } from './server-api';
import { getSession } from './session';

const sessionOnce = cache(getSession);

export async function requireUser(): Promise<Me> {
  return (await sessionOnce()) ?? redirectToLogin();
}

/** Viewers read everything and change nothing: write controls are hidden for them. */
export function canWrite(me: Me): boolean {
  return me.role === 'admin';
}
