/**
 * The blob storage port (docs/design/payloads-and-archive.md#blob-storage): large payloads and
 * archived runs. Two implementations pass one conformance suite (`test/blobs/blob-store.test.ts`):
 * a directory under the data dir (the embedded default) and an S3-compatible bucket.
 *
 * Keys are relative paths of plain characters (`payloads/task-output/….json`); `checkBlobKey`
 * refuses anything else, so a key can never leave the store's directory or prefix.
 */
export interface BlobStore {
  readonly kind: 'filesystem' | 's3';
  /** Where the blobs live, for /health and logs; never carries a secret. */
  readonly location: string;
  /** Writes the whole blob; a reader sees the old blob or the new one, never a part. */
  put(key: string, body: Uint8Array, contentType?: string): Promise<void>;
  /** The blob's bytes, or undefined when there is no such blob. */
  get(key: string): Promise<Buffer | undefined>;
  /** Deletes the blob; deleting a missing blob is not an error. */
  delete(key: string): Promise<void>;
  /**
   * A short-lived URL the store itself serves for reading or writing the blob (an S3 presigned
   * GET or PUT), or undefined when the store has no server of its own and Baton serves it.
   */
  presign(key: string, operation: BlobOperation, expiresInSeconds: number): Promise<string | undefined>;
  close(): Promise<void>;
}

export type BlobOperation = 'READ' | 'WRITE';

const KEY_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._\-/]*$/;
export const MAX_BLOB_KEY_LENGTH = 512;

/** Refuses keys that are not plain relative paths (no `..`, no empty segments, no leading `/`). */
export function checkBlobKey(key: string): string {
  const segments = key.split('/');
  if (
    key.length === 0 ||
    key.length > MAX_BLOB_KEY_LENGTH ||
    !KEY_PATTERN.test(key) ||
    segments.some((s) => s === '' || s === '.' || s === '..')
  ) {
    throw new BlobKeyError(`not a valid blob path: '${key.slice(0, 80)}'`);
  }
  return key;
}

export class BlobKeyError extends Error {
  override name = 'BlobKeyError';
}
