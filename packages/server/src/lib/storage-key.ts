/**
 * Storage keys have one spelling: lower-case folders of `[a-z0-9_-]` separated
 * by single slashes, then a name and one extension — `knowledge/u7/0123…cdef.txt`,
 * `avatars/7/12-photo-x.jpg`. No leading or trailing slash, no empty, `.` or `..` segment, no
 * backslash, NUL, percent sign, space, upper case or other character: a key that is not exactly
 * this is not a key. Every path to stored files goes through `storageKey` — serving, signing,
 * writing, reading, deleting, on local files and on the bucket (plugins/storage.ts,
 * plugins/storage-s3.ts, lib/s3-client.ts) — so that what is decided about a key (public or private,
 * whose it is, which signature it needs) is decided about the file that is read. Nothing is
 * normalised: `/knowledge/…`, `knowledge//…` or `%2Fknowledge/…` are refused, not mapped onto
 * `knowledge/…`.
 */
const CANONICAL = /^[a-z0-9_-]+(?:\/[a-z0-9_-]+)*\.[a-z0-9]+$/;
export const MAX_STORAGE_KEY_LENGTH = 512;

/** The key when it is in the one canonical form, else null. */
export function canonicalKey(key: unknown): string | null {
  return typeof key === 'string' && key.length <= MAX_STORAGE_KEY_LENGTH && CANONICAL.test(key) ? key : null;
}

/** The key itself; throws unless it is canonical (a key this server makes). */
export function storageKey(key: string): string {
  if (canonicalKey(key) === null) throw new Error(`bad storage key ${JSON.stringify(String(key).slice(0, 200))}`);
  return key;
}

/** The first folder of a canonical key (`knowledge` for `knowledge/u7/….txt`; '' for a key without one). */
export const topFolder = (key: string) => {
  const slash = key.indexOf('/');
  return slash === -1 ? '' : key.slice(0, slash);
};
