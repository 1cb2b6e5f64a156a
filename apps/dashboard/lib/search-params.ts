/** Next passes `searchParams` values as string | string[]; pages want one trimmed string. */
export type SearchParams = Record<string, string | string[] | undefined>;

export function param(params: SearchParams, name: string): string | undefined {
  const raw = params[name];
  const value = (Array.isArray(raw) ? raw[0] : raw)?.trim();
  return value ? value : undefined;
}

/** Builds `path?...` from the given values, dropping empty ones. */
export function hrefWith(path: string, values: Record<string, string | undefined>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(values)) if (value) search.set(name, value);
  const text = search.toString();
  return text ? `${path}?${text}` : path;
}
