import { isTerminalWorkflowStatus } from '@baton/protocol';

import type { BlobStore } from '../blobs/blob-store.js';
import { BatonError, fail } from '../errors.js';
import type { Store } from '../store/store.js';
import type { Archiver } from './archiver.js';

export interface BulkAnswer {
  bulkSuccessfulResults: string[];
  bulkErrorResults: Record<string, string>;
}

/**
 * Conductor's remove (`DELETE /api/workflow/{id}/remove?archiveWorkflow=`): with
 * `archiveWorkflow` (the default) an ended run is moved to the archive now, whatever its age;
 * without it the run is deleted for good, from the hot tables or from the archive, and with it
 * its idempotency key (a start may use the key again) and the operator actions recorded on it. A
 * run that has not ended is refused (409): terminate it first.
 */
export class RunRemoval {
  constructor(
    private readonly store: Store,
    private readonly blobs: BlobStore,
    private readonly archiver: Archiver,
  ) {}

  async remove(workflowId: string, archive: boolean): Promise<void> {
    const { hot, archived } = await this.store.read(async (tx) => ({
      hot: await tx.getRun(workflowId),
      archived: await tx.getArchivedRun(workflowId),
    }));
    if (hot) {
      if (!isTerminalWorkflowStatus(hot.status)) {
        throw fail('RUN_NOT_REMOVABLE', { workflowId, status: hot.status });
      }
      if (archive) {
        const outcome = await this.archiver.archiveRun(workflowId);
        if (outcome === 'changed') throw fail('RUN_CHANGED_WHILE_ARCHIVING', { workflowId });
        return;
      }
      await this.store.transaction(async (tx) => {
        const run = await tx.lockRun(workflowId);
        if (!run) return;
        if (!isTerminalWorkflowStatus(run.status)) {
          throw fail('RUN_NOT_REMOVABLE', { workflowId, status: run.status });
        }
        await tx.deleteRunRows(workflowId);
        await tx.deleteRunTraces(workflowId);
      });
      return;
    }
    if (!archived) throw fail('RUN_NOT_FOUND', { workflowId });
    if (archive) return;
    // The index row goes first: a document without one is never read, a row without its document would be.
    await this.store.transaction(async (tx) => {
      await tx.deleteArchivedRun(workflowId);
      await tx.deleteRunTraces(workflowId);
    });
    // Without its row the document is never read again; one left behind by a failing blob
    // store is only space.
    await this.blobs.delete(archived.blobKey).catch(() => undefined);
  }

  async bulkRemove(workflowIds: readonly string[], archive: boolean): Promise<BulkAnswer> {
    const answer: BulkAnswer = { bulkSuccessfulResults: [], bulkErrorResults: {} };
    for (const id of new Set(workflowIds)) {
      try {
        await this.remove(id, archive);
        answer.bulkSuccessfulResults.push(id);
      } catch (err) {
        if (!(err instanceof BatonError)) throw err;
        answer.bulkErrorResults[id] = err.message;
      }
    }
    return answer;
  }
}
