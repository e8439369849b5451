import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';

/** Reads a secret kept in DATA_DIR, creating it (mode 0600) on first start. */
export async function loadOrCreateKeyFile(dataDir: string, name: string, bytes = 32): Promise<string> {
  const file = path.join(dataDir, name);
  try {
    const value = (await fs.readFile(file, 'utf8')).trim();
    if (value) return value;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const value = randomBytes(bytes).toString('hex');
  await fs.mkdir(dataDir, { recursive: true });
  await fs.writeFile(file, `${value}\n`, { mode: 0o600, flag: 'wx' }).catch(async (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EEXIST') throw err;
  });
  return (await fs.readFile(file, 'utf8')).trim();
}
