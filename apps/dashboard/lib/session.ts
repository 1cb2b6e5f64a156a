/**
 * Server-side session lookup for Server Components (it uses `cookies()`). The session itself
 * lives in the API; the dashboard just forwards the cookie to GET /v1/auth/me.
 */
import { MeSchema, type Me } from '@tollgate/contracts';
import { cookies } from 'next/headers';
import { apiFetch, ApiProblem } from './api-client';
import { apiUrl, SESSION_COOKIE } from './config';

/**
 * Who is signed in, or `null` when there is no session cookie or the API answers 401.
 * Any other failure (the API is down, answers 5xx or something unreadable) throws the
 * `ApiProblem`: an outage is not the same as being signed out, and must not look like it.
 */
export async function getSession(): Promise<Me | null> {
  const jar = await cookies();
  if (!jar.has(SESSION_COOKIE)) return null;
  let body: unknown;
  try {
    body = await apiFetch<unknown>('/v1/auth/me', { baseUrl: apiUrl(), headers: { cookie: jar.toString() }, timeoutMs: 5000 });
  } catch (err) {
    if (err instanceof ApiProblem && err.status === 401) return null;
    throw err;
  }
  const me = MeSchema.safeParse(body);
  if (!me.success) {
    throw new ApiProblem({ status: 200, code: 'BAD_RESPONSE', title: 'Unexpected response', detail: 'The API answered GET /v1/auth/me with a body the dashboard does not understand.' });
  }
  return me.data;
}
