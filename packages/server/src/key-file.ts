import { randomBytes } from 'node:crypto';
import {
  closeSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';

/**
 * A 32-byte key kept in a file of the data dir (base64, mode 0600), made on first use. The key is
 * written to a temporary file and flushed before it is linked under its name, and the directory
 * is flushed after: a crash or a disk error right after the first start cannot leave an empty or
 * half-written key behind (what the key sealed would be lost with it). Two processes starting at
 * once on one data dir agree: linking fails for the one that loses the race, which reads the
 * winner's key.
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
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    const fd = openSync(temporary, 'wx', 0o600);
    try {
      writeSync(fd, key.toString('base64'));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    try {
      linkSync(temporary, file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return { key: read(), file, created: false };
      throw err;
    }
    const dir = openSync(dataDir, 'r');
    try {
      fsyncSync(dir);
    } finally {
      closeSync(dir);
    }
    return { key, file, created: true };
  } finally {
    rmSync(temporary, { force: true });
  }
}
