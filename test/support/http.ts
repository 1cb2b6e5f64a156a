export interface JsonResponse {
  status: number;
  headers: Headers;
  body: any;
}

/** fetch + JSON, with the body typed loosely for assertions. Sends JSON when `json` is given. */
export async function http(url: string, init: RequestInit & { json?: unknown; token?: string } = {}): Promise<JsonResponse> {
  const headers = new Headers(init.headers);
  if (init.json !== undefined) headers.set('content-type', 'application/json');
  if (init.token) headers.set('authorization', `Bearer ${init.token}`);
  const response = await fetch(url, { ...init, headers, body: init.json !== undefined ? JSON.stringify(init.json) : init.body });
  const text = await response.text();
  let body: any = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, headers: response.headers, body };
}
