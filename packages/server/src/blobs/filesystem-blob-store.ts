import { randomUUID } from 'node:crypto';
import { type FileHandle, mkdir, open, rename, rm } from 'node:fs/promises';
import path from 'node:path';

import { type BlobReadOptions, type BlobStore, BlobTooLarge, checkBlobKey } from './blob-store.js';

/**
 * Blobs as files under one directory (the embedded default: `<dataDir>/blobs`). A write goes to
 * a temporary file that is flushed and then renamed over the key, so a crash leaves the old blob
 * or the new one, never a torn one. Baton serves its signed URLs (`payloads/signed-url.ts`).
 */
export class FilesystemBlobStore implements BlobStore {
  readonly kind = 'filesystem' as const;

  constructor(private readonly root: string) {}

  get location(): string {
    return this.root;
  }

  private fileOf(key: string): string {
    return path.join(this.root, ...checkBlobKey(key).split('/'));
  }

  async put(key: string, body: Uint8Array): Promise<void> {
    const file = this.fileOf(key);
    await mkdir(path.dirname(file), { recursive: true });
    const tmp = `${file}.${randomUUID()}.tmp`;
    const handle = await open(tmp, 'w');
    try {
      await handle.writeFile(body);
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await rename(tmp, file);
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
  }

  async get(key: string, options?: BlobReadOptions): Promise<Buffer | undefined> {
    let handle: FileHandle;
    try {
      handle = await open(this.fileOf(key), 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
    try {
      // Sized and read through one handle: a blob renamed over the key meanwhile is not mixed in.
      const max = options?.maxBytes;
      if (max !== undefined) {
        const { size } = await handle.stat();
        if (size > max) throw new BlobTooLarge(key, size, max);
      }
      return await handle.readFile();
    } finally {
      await handle.close();
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.fileOf(key), { force: true });
  }

  presign(): Promise<undefined> {
    return Promise.resolve(undefined);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
