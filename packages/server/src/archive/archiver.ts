import { randomUUID } from 'node:crypto';

import { isTerminalWorkflowStatus } from '@baton/protocol';
import type { Logger } from 'pino';

import type { BlobStore } from '../blobs/blob-store.js';
import type { Clock } from '../clock.js';
import { coerceError } from '../errors.js';
import type { ArchivedRun, Store } from '../store/store.js';
import { archiveDocument, archiveKey, decodeArchive, encodeArchive, sha256 } from './archive-document.js';
import { PeriodicPass } from '../store/periodic-pass.js';

/**
 * The points between the archiver's steps. A fault hook (tests) may throw at any of them, as a
 * crash there would stop the move; `deleting` is inside the delete transaction, before COMMIT.
 */
export const ARCHIVE_STEPS = ['claimed', 'read', 'written', 'verified', 'deleting'] as const;
export type ArchiveStep = (typeof ARCHIVE_STEPS)[number];
export type ArchiveFaults = (step: ArchiveStep, workflowId: string) => void | Promise<void>;

export interface ArchiverOptions {
  /** Runs that ended this long ago are moved (ms). */
  afterMs: number;
  /** Sleep between passes that found nothing more to move (ms). */
  intervalMs: number;
  /** Runs claimed per pass. */
  batch: number;
  /** Runs of a pass moved side by side (default 4): each waits mostly on blob storage. */
  concurrency?: number;
  /** How long a claim keeps other archivers off a run (default 5 min); a dead node's claims lapse. */
  leaseMs?: number;
  faults?: ArchiveFaults;
  /** Told of each run moved, by a pass or a removal (metrics). */
  onArchived?: () => void;
}

/** What moving one run came to. */
export type ArchiveOutcome =
  /** Moved: the document is in blob storage, verified, and the hot rows are gone. */
  | 'archived'
  /** No hot run by that id (already moved by another archiver, or removed). */
  | 'gone'
  /** The run is not ended, or changed while it was being moved: left hot, tried again later. */
  | 'changed';

export interface ArchivePass {
  archived: string[];
  failed: Array<{ workflowId: string; reason: string }>;
}

const DEFAULT_LEASE_MS = 5 * 60_000;
/** Every mailbox message of a run goes into its document. */
const ALL_MESSAGES = 1_000_000_000;

/**
 * The archiver (docs/design/payloads-and-archive.md#the-archive): moves runs that ended more than
 * `afterMs` ago to blob storage, on any number of nodes. Each run is claimed (a lease row; SKIP
 * LOCKED on PostgreSQL), read whole, written as one compressed document, read back and verified,
 * and only then deleted from the hot tables in one transaction that also writes its slim index row.
 * A crash at any point leaves the run hot and whole (the claim lapses and the move starts over,
 * overwriting a document it may have written) or moved whole: never half.
 */
export class Archiver {
  private readonly node = `archiver-${randomUUID()}`;
  private readonly loop: PeriodicPass;

  constructor(
    private readonly store: Store,
    private readonly blobs: BlobStore,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly options: ArchiverOptions,
  ) {
    // The first pass at once; a full batch means more may be due: the next at once too.
    this.loop = new PeriodicPass(
      'archiver',
      logger,
      options.intervalMs,
      async () => {
        const pass = await this.runOnce();
        if (pass.archived.length > 0)
          this.logger.info({ archived: pass.archived.length }, 'archived ended runs');
        const full =
          pass.archived.length + pass.failed.length >= this.options.batch && pass.failed.length === 0;
        return full ? 'again' : undefined;
      },
      0,
    );
  }

  start(): void {
    this.loop.start();
  }

  /** A pass under way ends after the run it is moving. */
  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** One pass: claims a batch of due runs and moves each. */
  async runOnce(): Promise<ArchivePass> {
    const now = this.clock.now();
    const ids = await this.store.transaction((tx) =>
      tx.claimRunsToArchive({
        endedBefore: now - this.options.afterMs,
        now,
        leaseUntil: now + (this.options.leaseMs ?? DEFAULT_LEASE_MS),
        node: this.node,
        limit: this.options.batch,
      }),
    );
    const pass: ArchivePass = { archived: [], failed: [] };
    let next = 0;
    const lane = async (): Promise<void> => {
      while (next < ids.length && !this.loop.halted) {
        const workflowId = ids[next++] ?? '';
        try {
          await this.fault('claimed', workflowId);
          const outcome = await this.archiveRun(workflowId);
          if (outcome === 'archived') pass.archived.push(workflowId);
        } catch (raw) {
          const err = coerceError(raw);
          // The claim stays until it lapses, so a run that keeps failing is not retried in a loop.
          pass.failed.push({ workflowId, reason: err.message });
          this.logger.warn({ err, workflowId }, 'could not archive run; it stays in the hot tables');
        }
      }
    };
    const lanes = Math.max(1, Math.min(this.options.concurrency ?? 4, ids.length));
    await Promise.all(Array.from({ length: lanes }, lane));
    return pass;
  }

  /** Moves one ended run to the archive now, whatever its age (also `remove?archiveWorkflow=true`). */
  async archiveRun(workflowId: string): Promise<ArchiveOutcome> {
    const snapshot = await this.store.read(async (tx) => {
      const run = await tx.getRun(workflowId);
      if (!run) return undefined;
      return {
        run,
        tasks: await tx.getRunTasks(workflowId),
        logs: await tx.getRunLogs(workflowId),
        messages: await tx.getRunMessages(workflowId, ALL_MESSAGES),
      };
    });
    if (!snapshot) return 'gone';
    if (!isTerminalWorkflowStatus(snapshot.run.status)) return 'changed';
    await this.fault('read', workflowId);

    const doc = archiveDocument(snapshot.run, snapshot.tasks, snapshot.logs, snapshot.messages);
    const bytes = encodeArchive(doc);
    const hash = sha256(bytes);
    const key = archiveKey(snapshot.run);
    await this.blobs.put(key, bytes, 'application/gzip');
    await this.fault('written', workflowId);

    // Read back and compare before anything is deleted.
    const back = await this.blobs.get(key);
    if (!back) throw new Error(`the archived document of run ${workflowId} could not be read back`);
    if (JSON.stringify(decodeArchive(back, hash, workflowId)) !== JSON.stringify(doc)) {
      throw new Error(`the archived document of run ${workflowId} read back differs from what was written`);
    }
    await this.fault('verified', workflowId);

    const run = snapshot.run;
    const row: ArchivedRun = {
      workflowId,
      workflowName: run.workflowName,
      workflowVersion: run.workflowVersion,
      status: run.status,
      priority: run.priority,
      createTime: run.createTime,
      updateTime: run.updateTime,
      endTime: run.endTime,
      links: run.links,
      blobKey: key,
      blobSha256: hash,
      archivedAt: this.clock.now(),
      ...(run.correlationId !== undefined && { correlationId: run.correlationId }),
      ...(run.parentWorkflowId !== undefined && { parentWorkflowId: run.parentWorkflowId }),
    };
    const outcome = await this.store.transaction(async (tx): Promise<ArchiveOutcome> => {
      const current = await tx.lockRun(workflowId);
      if (!current) return 'gone';
      // Anything that changed since the read (a dead-letter requeue reopening the run, a log
      // line appended) would be lost with the hot rows: leave the run for the next pass.
      if (current.updateTime !== run.updateTime || current.status !== run.status) return 'changed';
      if ((await tx.getRunLogs(workflowId)).length !== snapshot.logs.length) return 'changed';
      await tx.deleteRunRows(workflowId);
      await tx.insertArchivedRun(row);
      await this.fault('deleting', workflowId);
      return 'archived';
    });
    if (outcome === 'archived') this.options.onArchived?.();
    return outcome;
  }

  private async fault(step: ArchiveStep, workflowId: string): Promise<void> {
    await this.options.faults?.(step, workflowId);
  }
}
