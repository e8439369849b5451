import { hash, verify } from '@node-rs/argon2';

/** Algorithm.Argon2id (a const enum, so spelled out). */
const ARGON2ID = 2;

// OWASP's argon2id minimum: m=19 MiB, t=2, p=1.
const OPTIONS = { algorithm: ARGON2ID, memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;

export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

let dummyHash: Promise<string> | undefined;
/** Verifies against a throw-away hash so unknown e-mails take as long as known ones. */
export async function burnPasswordCheck(password: string): Promise<void> {
  dummyHash ??= hashPassword('not-a-real-password-0123456789');
  await verifyPassword(await dummyHash, password);
}
