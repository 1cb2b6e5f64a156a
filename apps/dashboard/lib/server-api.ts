/**
 * Server-side reads for Server Components: forwards the session cookie, sends an expired session
 * back to /login (remembering the page), and turns any other failure into a `ProblemInfo`
 * the page renders instead of a blank screen.
 */
import { cookies, headers } from 'next/headers';
import { notFound, redirect } from 'next/navigation';
import { apiFetch, ApiProblem } from './api-client';
import { apiUrl, PATH_HEADER } from './config';
import { safeReturnPath } from './navigation';
import { toProblemInfo, type ProblemInfo } from './problem';

export type Loaded<T> = { ok: true; data: T } | { ok: false; problem: ProblemInfo };

export function loginPath(returnTo: string): string {
  return returnTo && returnTo !== '/' ? `/login?next=${encodeURIComponent(returnTo)}` : '/login';
}

/** Throws Next's redirect to /login, coming back to the page being rendered (proxy.ts passes its path along). */
export async function redirectToLogin(): Promise<never> {
  const requested = (await headers()).get(PATH_HEADER);
  redirect(loginPath(safeReturnPath(requested)));
}

/** GET `path` from the API as the signed-in user. */
export async function serverGet<T>(path: string): Promise<Loaded<T>> {
  const jar = await cookies();
  try {
    const data = await apiFetch<T>(path, { baseUrl: apiUrl(), headers: { cookie: jar.toString() }, timeoutMs: 10_000 });
    return { ok: true, data };
  } catch (err) {
    if (err instanceof ApiProblem && err.status === 401) return redirectToLogin();
    return { ok: false, problem: toProblemInfo(err) };
  }
}

/**
 * GET the one resource a detail page is about: an unknown (404) or malformed (400) id is the
 * not-found page; any other failure comes back for the page to show as a `ProblemAlert`.
 */
export async function loadOrNotFound<T>(path: string): Promise<Loaded<T>> {
  const loaded = await serverGet<T>(path);
  if (!loaded.ok && (loaded.problem.status === 404 || loaded.problem.status === 400)) notFound();
  return loaded;
}

/** `?a=1&b=` -> `?a=1`, for building API query strings from optional filters. */
export function queryString(params: Record<string, string | number | undefined | null>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== '') search.set(name, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}
