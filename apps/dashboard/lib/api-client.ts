/**
 * A small typed fetch wrapper for the Tollgate API, usable in the browser (through the
 * same-origin `/api` proxy) and on the server (pass `baseUrl: apiUrl()` and forward cookies).
 * Every non-2xx answer becomes an `ApiProblem` built from the RFC 9457 problem+json body.
 */
import type { ErrorCode, FieldError, Problem } from '@tollgate/contracts';
import { BROWSER_API_BASE } from './config';

/** Codes the API sends, plus two the client produces itself. */
export type ApiProblemCode = ErrorCode | 'NETWORK_ERROR' | 'BAD_RESPONSE';

/** What an `ApiProblem` is built from: a problem+json body, or one the client makes up. */
export type ProblemInit = Partial<Omit<Problem, 'code' | 'status' | 'detail'>> & { status: number; code: string; detail: string };

export class ApiProblem extends Error {
  override readonly name = 'ApiProblem';
  /** HTTP status; 0 when the request never got an answer. */
  readonly status: number;
  readonly code: ApiProblemCode | (string & {});
  readonly type: string;
  readonly title: string;
  readonly detail: string;
  readonly requestId?: string;
  readonly errors: FieldError[];
  /** Seconds from `Retry-After`, when the API sent one (429, 503). */
  readonly retryAfter?: number;

  constructor(problem: ProblemInit, retryAfter?: number, options?: { cause?: unknown }) {
    super(problem.detail, options);
    this.status = problem.status;
    this.code = problem.code;
    this.type = problem.type ?? 'about:blank';
    this.title = problem.title ?? problem.detail;
    this.detail = problem.detail;
    this.requestId = problem.requestId;
    this.errors = problem.errors ?? [];
    this.retryAfter = retryAfter;
  }

  /** The message for one field (`path` as the API names it, e.g. `email` or `limits.0.name`). */
  fieldError(path: string): string | undefined {
    return this.errors.find((e) => e.path === path)?.message;
  }

  static async fromResponse(res: Response): Promise<ApiProblem> {
    const retryHeader = res.headers.get('retry-after');
    const retryAfter = retryHeader !== null && /^\d+$/.test(retryHeader.trim()) ? Number(retryHeader) : undefined;
    const body: unknown = (res.headers.get('content-type') ?? '').includes('json') ? await res.json().catch(() => undefined) : undefined;
    if (isProblemLike(body)) {
      return new ApiProblem({ ...body, status: typeof body.status === 'number' ? body.status : res.status }, retryAfter);
    }
    // Not problem+json: the proxy could not reach the API, or something in between answered.
    const unavailable = res.status >= 500;
    return new ApiProblem(
      {
        status: res.status,
        code: unavailable ? 'SERVICE_UNAVAILABLE' : 'BAD_RESPONSE',
        title: res.statusText || `HTTP ${res.status}`,
        detail: unavailable ? 'The Tollgate API is not reachable right now. Try again shortly.' : `Unexpected response from the API (HTTP ${res.status}).`,
      },
      retryAfter,
    );
  }

  static network(cause: unknown): ApiProblem {
    return new ApiProblem(
      { status: 0, code: 'NETWORK_ERROR', title: 'Network error', detail: 'Could not reach the server. Check your connection and try again.' },
      undefined,
      { cause },
    );
  }
}

function isProblemLike(body: unknown): body is Omit<ProblemInit, 'status'> & { status?: unknown } {
  if (typeof body !== 'object' || body === null) return false;
  const b = body as Record<string, unknown>;
  return typeof b.code === 'string' && typeof b.detail === 'string';
}

export interface ApiRequestInit extends Omit<RequestInit, 'body'> {
  /** Serialized as the JSON request body. */
  json?: unknown;
  /** Defaults to the browser proxy (`/api`); on the server pass `apiUrl()`. */
  baseUrl?: string;
  /** Aborts the request after this many milliseconds. */
  timeoutMs?: number;
}

/** Calls the API and returns the parsed JSON body (`undefined` for 204), or throws `ApiProblem`. */
export async function apiFetch<T = unknown>(path: string, init: ApiRequestInit = {}): Promise<T> {
  const { json, baseUrl = BROWSER_API_BASE, timeoutMs, headers, signal, ...rest } = init;
  const h = new Headers(headers);
  if (!h.has('accept')) h.set('accept', 'application/json, application/problem+json');
  let body: string | undefined;
  if (json !== undefined) {
    h.set('content-type', 'application/json');
    body = JSON.stringify(json);
  }
  const signals = [signal, timeoutMs ? AbortSignal.timeout(timeoutMs) : undefined].filter((s): s is AbortSignal => !!s);

  let res: Response;
  try {
    res = await fetch(`${baseUrl}${path}`, {
      credentials: 'same-origin',
      cache: 'no-store',
      ...rest,
      headers: h,
      body,
      signal: signals.length > 1 ? AbortSignal.any(signals) : signals[0],
    });
  } catch (err) {
    throw ApiProblem.network(err);
  }

  if (!res.ok) {
    if (res.status === 401 && !path.startsWith('/v1/auth/')) navigateToLogin();
    throw await ApiProblem.fromResponse(res);
  }
  if (res.status === 204 || res.status === 205 || res.headers.get('content-length') === '0') return undefined as T;
  if ((res.headers.get('content-type') ?? '').includes('json')) {
    try {
      return (await res.json()) as T;
    } catch (err) {
      throw new ApiProblem({ status: res.status, code: 'BAD_RESPONSE', detail: 'The API sent a malformed JSON body.' }, undefined, { cause: err });
    }
  }
  return (await res.text()) as T;
}

/**
 * An expired session in the browser: navigate to the login page, which comes back here
 * afterwards. (Server Components use `redirectToLogin` in `lib/server-api.ts`, which throws
 * Next's redirect; login/logout/me handle 401 themselves.)
 */
export function navigateToLogin(): void {
  if (typeof window === 'undefined' || window.location.pathname === '/login') return;
  const here = `${window.location.pathname}${window.location.search}`;
  window.location.assign(`/login?next=${encodeURIComponent(here)}`);
}

/** Shorthands. `T` is the expected response body type (e.g. `Plan`, `{ items: Key[] }`). */
export const api = {
  get: <T>(path: string, init?: ApiRequestInit) => apiFetch<T>(path, { ...init, method: 'GET' }),
  post: <T = void>(path: string, json?: unknown, init?: ApiRequestInit) => apiFetch<T>(path, { ...init, method: 'POST', json }),
  patch: <T>(path: string, json: unknown, init?: ApiRequestInit) => apiFetch<T>(path, { ...init, method: 'PATCH', json }),
  delete: <T = void>(path: string, init?: ApiRequestInit) => apiFetch<T>(path, { ...init, method: 'DELETE' }),
};
