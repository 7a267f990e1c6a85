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
  /**
   * The blob's bytes, or undefined when there is no such blob. With `maxBytes`, a larger blob is
   * refused with `BlobTooLarge` before it is read whole: a blob's size is whatever its uploader
   * sent (an S3 presigned PUT bounds nothing), and reading it whole could take the node's memory.
   */
  get(key: string, options?: BlobReadOptions): Promise<Buffer | undefined>;
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

export interface BlobReadOptions {
  /** The most bytes the reader takes; a larger blob is refused with `BlobTooLarge`. */
  readonly maxBytes?: number;
}

/** A blob over a reader's `maxBytes`; `bytes` is its size when the store said it, else undefined. */
export class BlobTooLarge extends Error {
  override name = 'BlobTooLarge';
  constructor(
    readonly key: string,
    readonly bytes: number | undefined,
    readonly limit: number,
  ) {
    super(
      `the blob at ${key} is ${bytes === undefined ? 'larger than' : `${bytes} bytes, over`} the ${limit} bytes its reader takes`,
    );
  }
}

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
