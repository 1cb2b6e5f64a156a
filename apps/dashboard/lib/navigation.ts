/** Client- and server-safe navigation helpers. */

/** Only same-origin paths are allowed as a post-login destination (no `//host`, `/\host` or `https:`). */
export function safeReturnPath(value: string | null | undefined): string {
  return value && value.startsWith('/') && !value.startsWith('//') && !value.startsWith('/\\') ? value : '/';
}
