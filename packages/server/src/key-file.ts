import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * A 32-byte key kept in a file of the data dir (base64, mode 0600), made on first use. Two
 * processes starting at once on one data dir agree: the file is created exclusively, and the one
 * that loses the race reads the winner's key.
 */
export function readOrCreateKeyFile(
  dataDir: string,
  name: string,
): { key: Buffer; file: string; created: boolean } {
  const file = path.join(dataDir, name);
  const read = (): Buffer => {
    const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
    if (key.length !== 32) throw new Error(`${file} does not hold a 32-byte key in base64`);
    return key;
  };
  try {
    return { key: read(), file, created: false };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32);
  try {
    writeFileSync(file, key.toString('base64'), { mode: 0o600, flag: 'wx' });
    return { key, file, created: true };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return { key: read(), file, created: false };
    throw err;
  }
}
