import type { RunLinks, TaskLog, WorkflowStatus } from '@baton/protocol';

import type { RunQuery } from './search.js';
import type { PortAccess } from './access.js';

/** The slim index row of a run moved to blob storage; the whole run is the blob. */
export interface ArchivedRun {
  workflowId: string;
  workflowName: string;
  workflowVersion: number;
  status: WorkflowStatus;
  correlationId?: string;
  priority: number;
  parentWorkflowId?: string;
  createTime: number;
  updateTime: number;
  endTime: number;
  /** Retry / restart / rerun links, kept current when an archived run is restarted or rerun. */
  links: RunLinks;
  blobKey: string;
  /** SHA-256 (hex) of the compressed document, checked on every read. */
  blobSha256: string;
  archivedAt: number;
}

export interface ArchiveClaim {
  /** Runs that ended at or before this time (epoch ms) are due. */
  endedBefore: number;
  now: number;
  /** Claimed runs are this node's until then; a node that dies lets its claims lapse. */
  leaseUntil: number;
  node: string;
  limit: number;
}

/** One page of a pass over the stored run-definition snapshots (`pruneRunDefinitions`). */
export interface DefinitionPruning {
  /** Where the page starts: `next` of the page before it; absent on the first page. */
  after?: string;
  /** Snapshots a page looks at. */
  limit: number;
  /** When a snapshot found unused now is marked unused since (epoch ms). */
  now: number;
  /** A snapshot unused since this time or before, and still unused, is deleted. */
  unusedBefore: number;
}

export interface DefinitionPrunePage {
  /** Where the next page starts; absent when this page was the last. */
  next?: string;
  /** Snapshots no run refers to that this page marked unused. */
  marked: number;
  /** Snapshots this page deleted. */
  deleted: number;
}

/** The archive: runs moved to blob storage, `archived_runs` their index. */
export interface ArchivePort {
  /**
   * Claims up to `limit` ended runs due for the archive that no live claim holds, oldest end
   * first, until `leaseUntil`. SKIP LOCKED on PostgreSQL: concurrent archivers never claim the
   * same run. Answers their ids.
   */
  claimRunsToArchive(claim: ArchiveClaim): Promise<string[]>;
  /** Every log line of every task of a run, in insertion order. */
  getRunLogs(workflowId: string): Promise<TaskLog[]>;
  /**
   * Deletes every hot row of a run: the run, its tasks, their logs and latest-by-name rows, its
   * mailbox, queue messages, timers and archive claim. The caller holds the run's lock.
   */
  deleteRunRows(workflowId: string): Promise<void>;
  /**
   * Deletes what a run leaves outside its hot rows and its archive index row: its idempotency key
   * and the operator actions recorded on it. For a run removed for good; an archived run keeps
   * both (a start repeating its key still finds it, and its read still shows who did what).
   */
  deleteRunTraces(workflowId: string): Promise<void>;
  /**
   * One page of a pass over the run-definition snapshots, in key order: a snapshot no run refers
   * to is marked unused (once), one a run refers to again is unmarked, and one unused since
   * `unusedBefore` or earlier is deleted. A run that refers to a snapshot, committed or starting
   * at the same moment, keeps it (run definitions are shared by every run of one text, and a
   * start may reuse one at any time). A page is its own transaction's work, kept short.
   */
  pruneRunDefinitions(page: DefinitionPruning): Promise<DefinitionPrunePage>;
  insertArchivedRun(row: ArchivedRun): Promise<void>;
  getArchivedRun(workflowId: string): Promise<ArchivedRun | undefined>;
  /** The query over archived runs (free text matches id, correlation id and name only). */
  searchArchivedRuns(query: RunQuery): Promise<{ totalHits: number; results: ArchivedRun[] }>;
  archivedRunsByCorrelationId(name: string, correlationId: string): Promise<ArchivedRun[]>;
  updateArchivedRunLinks(workflowId: string, links: RunLinks): Promise<void>;
  deleteArchivedRun(workflowId: string): Promise<boolean>;
}

/** Which `ArchivePort` methods write (refused inside `read()`); every method is checked (tx-access.ts). */
export const ARCHIVE_ACCESS = {
  claimRunsToArchive: 'write',
  getRunLogs: 'read',
  deleteRunRows: 'write',
  deleteRunTraces: 'write',
  pruneRunDefinitions: 'write',
  insertArchivedRun: 'write',
  getArchivedRun: 'read',
  searchArchivedRuns: 'read',
  archivedRunsByCorrelationId: 'read',
  updateArchivedRunLinks: 'write',
  deleteArchivedRun: 'write',
} as const satisfies PortAccess<ArchivePort>;
