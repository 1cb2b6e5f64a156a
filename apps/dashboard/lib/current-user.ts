/**
 * The signed-in user for the current request, fetched once (React `cache`) however many Server
 * Components ask. Without a session, a redirect to /login that returns to the requested page;
 * when the API cannot tell (it is down or answers an error), the problem, never a redirect.
 */
import type { Me } from '@tollgate/contracts';
import { cache } from 'react';
import { toProblemInfo, type ProblemInfo } from './problem';
import { redirectToLogin } from './server-api';
import { getSession } from './session';

export type SessionState = { status: 'signed-in'; me: Me } | { status: 'signed-out' } | { status: 'error'; problem: ProblemInfo };

/** Once per request: the layout and the page both ask. */
export const currentSession = cache(async (): Promise<SessionState> => {
  try {
    const me = await getSession();
    return me ? { status: 'signed-in', me } : { status: 'signed-out' };
  } catch (err) {
    return { status: 'error', problem: toProblemInfo(err) };
  }
});

/**
 * The signed-in user, or a redirect to /login. When the session could not be checked the
 * signed-in layout shows the problem instead of the page, so this only throws for a page
 * that is never shown.
 */
export async function requireUser(): Promise<Me> {
  const session = await currentSession();
  if (session.status === 'signed-in') return session.me;
  if (session.status === 'signed-out') return redirectToLogin();
  throw new Error(`The session could not be checked: ${session.problem.detail}`);
}

/** Viewers read everything and change nothing: write controls are hidden for them. */
export function canWrite(me: Me): boolean {
  return me.role === 'admin';
}
