import { randomUUID } from 'node:crypto';

import type { BlobStore } from './blob-store.js';

/**
 * The /health check of blob storage: writes, reads back and deletes a small probe object, so
 * a bucket that answers but refuses writes (permissions, full disk) is DOWN too. Throws with
 * the reason; answers where the store is when it is UP.
 */
export function blobHealthCheck(blobs: BlobStore): () => Promise<Record<string, unknown>> {
  const probeKey = `health/probe-${randomUUID()}`;
  return async () => {
    const body = Buffer.from(`baton health probe ${Date.now()}`);
    try {
      await blobs.put(probeKey, body, 'text/plain');
      const back = await blobs.get(probeKey);
      if (!back || !back.equals(body))
        throw new Error('the probe object read back differs from what was written');
      await blobs.delete(probeKey);
    } catch (err) {
      const reason = err instanceof Error ? err.message || err.name : String(err);
      throw new Error(`blob store ${blobs.kind} (${blobs.location}): ${reason}`);
    }
    return { kind: blobs.kind, location: blobs.location };
  };
}
