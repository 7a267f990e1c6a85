import path from 'node:path';

import type { BlobSettings } from '../config/blob-settings.js';
import type { BlobStore } from './blob-store.js';
import { FilesystemBlobStore } from './filesystem-blob-store.js';

/**
 * Opens the configured blob store. The AWS SDK is loaded only when a bucket is configured: it
 * is large, and on older Node versions it warns at load time.
 */
export async function openBlobStore(settings: BlobSettings): Promise<BlobStore> {
  if (settings.kind === 'filesystem') return new FilesystemBlobStore(path.resolve(settings.directory));
  const { kind: _kind, ...s3 } = settings;
  const { S3BlobStore } = await import('./s3-blob-store.js');
  return new S3BlobStore(s3);
}
