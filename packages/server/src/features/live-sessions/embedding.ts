/**
 * Who may frame the avatar page (/avatar/{id}), and what a refused site is shown (ADR 085).
 *
 * The page's `frame-ancestors` is the avatar's allowed origins plus the portal itself (the
 * editor's Live Preview frames it from the portal), `*` when the list is empty. The browser
 * enforces it on every ancestor. A site that is not on the list would only see the browser's
 * broken-frame icon: when the request itself says it is a frame of such a site, the portal answers
 * with the refusal page instead — frameable by anyone, with nothing to click (no session, no
 * button, no link), so framing it gains a clickjacker nothing.
 */

const FRAME_DESTINATIONS = new Set(['iframe', 'frame', 'object', 'embed']);

function originOf(value: string | undefined): string | null {
  if (!value) return null;
  try {
    const origin = new URL(value).origin;
    return origin === 'null' ? null : origin;
  } catch {
    return null;
  }
}

/** The page's frame-ancestors: the allowed origins and the portal ('self' and PUBLIC_URL's origin); `*` when there is no list. */
export function frameAncestorsFor(allowedOrigins: readonly string[], portalOrigin: string): string[] {
  if (allowedOrigins.length === 0) return ['*'];
  return [...new Set(["'self'", portalOrigin, ...allowedOrigins])];
}

/**
 * True when the request is a frame (Sec-Fetch-Dest) whose parent (Referer) is a site the avatar
 * does not allow: the browser would refuse the page there. Without a Sec-Fetch-Dest (older
 * browsers) or a Referer (a page with `referrerpolicy="no-referrer"`) the parent is not known:
 * the real page is served and the browser's check decides, as before. `ownOrigins`: the portal's
 * public origin and the one this request reached it at.
 */
export function isFramedByRefusedSite(allowedOrigins: readonly string[], headers: { secFetchDest?: string; referer?: string }, ownOrigins: readonly string[]): boolean {
  if (allowedOrigins.length === 0) return false;
  if (!headers.secFetchDest || !FRAME_DESTINATIONS.has(headers.secFetchDest)) return false;
  const parent = originOf(headers.referer);
  if (parent === null) return false;
  return !allowedOrigins.includes(parent) && !ownOrigins.includes(parent);
}
