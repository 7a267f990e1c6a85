import path from 'node:path';

import type { BlobStore } from './blob-store.js';
import { FilesystemBlobStore } from './filesystem-blob-store.js';
import { S3BlobStore } from './s3-blob-store.js';

/** Blob settings as the configuration module validated them. */
export type BlobSettings =
  | { kind: 'filesystem'; directory: string }
  | {
      kind: 's3';
      bucket: string;
      prefix: string;
      region: string;
      endpoint?: string;
      forcePathStyle: boolean;
      credentials?: { accessKeyId: string; secretAccessKey: string };
    };

/** Opens the configured blob store. */
export function openBlobStore(settings: BlobSettings): BlobStore {
  if (settings.kind === 'filesystem') return new FilesystemBlobStore(path.resolve(settings.directory));
  const { kind: _kind, ...s3 } = settings;
  return new S3BlobStore(s3);
}
