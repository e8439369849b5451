/** Minimal cookie reading and writing (RFC 6265) for the few cookies the server sets. */

/** The value of cookie `name` in a Cookie header, or undefined. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

export interface CookieOptions {
  maxAgeSeconds: number;
  path?: string;
  secure: boolean;
  sameSite: 'Lax' | 'Strict';
  httpOnly: boolean;
}

/** A Set-Cookie value. `value` must be cookie-safe already (e.g. base64url). */
export function serializeCookie(name: string, value: string, opts: CookieOptions): string {
  return [
    `${name}=${value}`,
    `Max-Age=${Math.floor(opts.maxAgeSeconds)}`,
    `Path=${opts.path ?? '/'}`,
    ...(opts.httpOnly ? ['HttpOnly'] : []),
    ...(opts.secure ? ['Secure'] : []),
    `SameSite=${opts.sameSite}`,
  ].join('; ');
}
