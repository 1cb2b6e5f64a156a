/**
 * Server-side session helpers for Server Components and Route Handlers (they use `cookies()`).
 * The session itself lives in the API; the dashboard just forwards the cookie to GET /v1/auth/me.
 */
import { MeSchema, type Me } from '@tollgate/contracts';
import { cookies } from 'next/headers';
import { redirect } from 'next/navigation';
import { apiFetch, ApiProblem } from './api-client';
import { apiUrl, SESSION_COOKIE } from './config';

/**
 * Who is signed in, or `null` when there is no session cookie, the API says 401, or the API
 * cannot be reached. Never throws for API trouble: callers redirect to /login instead.
 */
export async function getSession(): Promise<Me | null> {
  const jar = await cookies();
  if (!jar.has(SESSION_COOKIE)) return null;
  try {
    const body = await apiFetch<unknown>('/v1/auth/me', {
      baseUrl: apiUrl(),
      headers: { cookie: jar.toString() },
      timeoutMs: 5000,
    });
    const me = MeSchema.safeParse(body);
    return me.success ? me.data : null;
  } catch (err) {
    if (err instanceof ApiProblem) {
      if (err.status !== 401) console.warn(`[dashboard] GET /v1/auth/me failed: ${err.status} ${err.code} ${err.detail}`);
      return null;
    }
    throw err;
  }
}

/** The signed-in user, or a redirect to /login (remembering where to come back to). */
export async function requireSession(returnTo?: string): Promise<Me> {
  const me = await getSession();
  if (!me) redirect(returnTo && returnTo !== '/' ? `/login?next=${encodeURIComponent(returnTo)}` : '/login');
  return me;
}

