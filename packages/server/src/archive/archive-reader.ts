import type { Workflow } from '@baton/protocol';

import type { BlobStore } from '../blobs/blob-store.js';
import { fail } from '../errors.js';
import type { ArchivedRun, Store, Tx } from '../store/store.js';
import { type ArchiveDocument, decodeArchive } from './archive-document.js';

/** An archived run: its index row and, once read, its whole document. */
export interface ArchivedRunDoc {
  row: ArchivedRun;
  doc: ArchiveDocument;
}

/**
 * Reads runs from the archive: the index row from the store, the document from blob storage,
 * checked against the recorded hash. A document that cannot be read answers 503 (retryable):
 * the run exists, blob storage does not answer.
 */
export class ArchiveReader {
  constructor(
    private readonly store: Store,
    private readonly blobs: BlobStore,
  ) {}

  /** The index row of an archived run, or undefined. */
  row(workflowId: string, tx?: Tx): Promise<ArchivedRun | undefined> {
    return tx ? tx.getArchivedRun(workflowId) : this.store.read((r) => r.getArchivedRun(workflowId));
  }

  /** The whole archived run, or undefined when the run is not archived. */
  async find(workflowId: string, tx?: Tx): Promise<ArchivedRunDoc | undefined> {
    const row = await this.row(workflowId, tx);
    if (!row) return undefined;
    return { row, doc: await this.document(row) };
  }

  async document(row: ArchivedRun): Promise<ArchiveDocument> {
    let bytes: Buffer | undefined;
    try {
      bytes = await this.blobs.get(row.blobKey);
    } catch (err) {
      throw fail('RUN_DOCUMENT_UNAVAILABLE', {
        workflowId: row.workflowId,
        reason: err instanceof Error ? err.message : String(err),
      });
    }
    if (bytes === undefined) {
      throw fail('RUN_DOCUMENT_MISSING', { workflowId: row.workflowId });
    }
    try {
      return decodeArchive(bytes, row.blobSha256, row.workflowId);
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      throw fail('RUN_DOCUMENT_UNREADABLE', { workflowId: row.workflowId, reason });
    }
  }
}

/** The read answer of an archived run: the run as it was when it was moved, marked archived. */
export function archivedWorkflow(found: ArchivedRunDoc, includeTasks: boolean): Workflow {
  const { run, tasks } = found.doc;
  // Links made after the move (a restart or rerun of the archived run) live in the index row.
  return {
    ...run,
    links: found.row.links,
    tasks: includeTasks ? tasks : [],
    startTime: run.createTime,
    archived: true,
  };
}
