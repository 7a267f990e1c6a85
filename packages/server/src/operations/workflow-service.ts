import {
  isTerminalWorkflowStatus,
  type JsonObject,
  type PollData,
  type RunRecord,
  type SearchResult,
  type StartWorkflowRequest,
  type Workflow,
  type WorkflowDef,
  type WorkflowStatus,
  type WorkflowSummary,
} from '@baton/protocol';

import { type Clock, systemClock } from '../clock.js';
import { copyWith } from '../copy-with.js';
import { fail } from '../errors.js';
import type { WakeBus } from '../queue/wake-bus.js';
import type { ArchivedRun, RunQuery, Store } from '../store/store.js';
import { type ArchiveReader, archivedWorkflow } from '../archive/archive-reader.js';
import { mergeRunPages } from '../archive/archived-search.js';
import { newId } from '../ids.js';
import { afterCommit, type DecisionApplier } from '../decisions/decision-applier.js';
import { renewAttempt, settledWith } from '../decisions/after-commit.js';
import { explainTasks, runWaiting } from '../views/waiting.js';
import { claimStartKey } from './idempotent-start.js';
import { isoOrUnknown, storableTime } from '../bounds/time.js';
import type { ParkedPolls } from '../handout/parked-polls.js';

export interface WorkflowStatusView {
  workflowId: string;
  correlationId?: string;
  status: WorkflowStatus;
  output?: JsonObject;
  variables?: JsonObject;
}

/** ISO text of a stored time; one no Date can hold (an older version's record) reads "unknown". */
function iso(ms: number): string {
  return isoOrUnknown(ms);
}

export function toSummary(run: RunRecord): WorkflowSummary {
  const summary: WorkflowSummary = {
    workflowType: run.workflowName,
    version: run.workflowVersion,
    workflowId: run.workflowId,
    startTime: iso(run.createTime),
    updateTime: iso(run.updateTime),
    status: run.status,
    input: JSON.stringify(run.input),
    output: JSON.stringify(run.output),
    executionTime: run.endTime > 0 ? run.endTime - run.createTime : 0,
    failedReferenceTaskNames: run.failedReferenceTaskNames.join(','),
    failedTaskNames: run.failedTaskNames,
    priority: run.priority,
  };
  if (run.correlationId !== undefined) summary.correlationId = run.correlationId;
  if (run.endTime > 0) summary.endTime = iso(run.endTime);
  if (run.reasonForIncompletion !== undefined) summary.reasonForIncompletion = run.reasonForIncompletion;
  if (run.idempotencyKey !== undefined) summary.idempotencyKey = run.idempotencyKey;
  if (run.parentWorkflowId !== undefined) summary.parentWorkflowId = run.parentWorkflowId;
  return summary;
}

const GROUPED = { group: true } as const;

/** Starting, reading and searching runs. */
export class WorkflowService {
  constructor(
    private readonly store: Store,
    private readonly executor: DecisionApplier,
    private readonly wake: WakeBus,
    private readonly clock: Clock = systemClock,
    /** Lays polls not yet written over the stored ones (`PollRecorder.merge`). */
    private readonly withPending?: (stored: readonly PollData[], taskType: string) => PollData[],
    /** Runs moved to blob storage, read transparently. */
    private readonly archive?: ArchiveReader,
    /** This node's waiting polls, which a run's first tasks are handed to (handout/parked-polls.ts). */
    private readonly parked?: ParkedPolls,
  ) {}

  /**
   * Starts a run of the named definition (latest version when none is given); answers its id.
   * `syncWaitUntil`: a synchronous execute waits for the run until then (`RunRecord.syncWaitUntil`);
   * a run an idempotency key answers instead of a new one is marked so too.
   */
  async start(request: StartWorkflowRequest, options: { syncWaitUntil?: number } = {}): Promise<string> {
    const after = afterCommit();
    const { syncWaitUntil } = options;
    // Made here, where the request's span is active (a grouped commit runs in another's context).
    const trace = await this.executor.runTrace(request.name);
    const transaction = this.store.transaction(async (tx) => {
      // An attempt run again hands nothing its last one reserved.
      renewAttempt(after, this.parked?.attempt);
      // An inline definition (checked as registration checks one) runs as given, unregistered.
      const inline = request.workflowDef && inlineDefinition(request.workflowDef);
      const definition = inline ?? (await tx.getWorkflowDef(request.name, request.version));
      if (!definition) {
        throw request.version === undefined
          ? fail('DEFINITION_NOT_FOUND', { name: request.name })
          : fail('DEFINITION_VERSION_NOT_FOUND', { name: request.name, version: request.version });
      }
      const workflowId = newId();
      const existing = await claimStartKey(tx, definition.name, request, workflowId, this.executor.now());
      if (existing !== undefined) return { workflowId: existing, existing: true };
      const input: Parameters<DecisionApplier['startRun']>[1] = {
        workflowId,
        definition,
        input: request.input ?? {},
        priority: request.priority ?? 0,
        taskToDomain: request.taskToDomain ?? {},
        // A definition from the request honours no secret reference, as START_WORKFLOW's inline one.
        ...(inline && { definitionFromData: true as const }),
        ...(request.correlationId !== undefined && { correlationId: request.correlationId }),
        ...(request.idempotencyKey !== undefined && { idempotencyKey: request.idempotencyKey }),
        ...(syncWaitUntil !== undefined && { syncWaitUntil }),
        ...(trace !== undefined && { trace }),
      };
      return this.executor.startRun(tx, input, after);
      // Starts arriving together share a commit (group commit on PostgreSQL), as results do.
    }, GROUPED);
    const run = await settledWith(after, transaction);
    this.executor.afterCommitted(after, this.wake);
    if ('existing' in run && syncWaitUntil !== undefined)
      await this.markSyncWait(run.workflowId, syncWaitUntil);
    return run.workflowId;
  }

  /**
   * Marks an open run as waited for until `until` (`RunRecord.syncWaitUntil`), in a transaction of
   * its own after the start's: taking the run lock inside the start, under the idempotency key's,
   * would order the two locks against the decisions that end the run.
   */
  private async markSyncWait(workflowId: string, until: number): Promise<void> {
    await this.store.transaction(async (tx) => {
      const run = await tx.lockRun(workflowId);
      if (!run || isTerminalWorkflowStatus(run.status) || (run.syncWaitUntil ?? 0) >= until) return;
      await tx.updateRun(copyWith(run, { syncWaitUntil: until }));
    });
  }

  /** A run with its tasks; an open run also says what it and each open task wait for (computed now). */
  async get(workflowId: string, includeTasks = true): Promise<Workflow> {
    const found = await this.store.read(async (tx) => {
      const run = await tx.getRun(workflowId);
      if (!run) return undefined;
      const tasks = await tx.getRunTasks(workflowId);
      const open = run.status === 'RUNNING' || run.status === 'PAUSED';
      const why = open
        ? await explainTasks(tx, tasks, this.clock.now(), this.withPending)
        : new Map<string, never>();
      return { run, tasks, why };
    });
    if (!found) {
      const archived = await this.archive?.find(workflowId);
      if (archived) return archivedWorkflow(archived, includeTasks);
      throw fail('RUN_NOT_FOUND', { workflowId });
    }
    const { run, tasks, why } = found;
    const shown = includeTasks
      ? tasks.map((t) => {
          const w = why.get(t.taskId);
          return w ? copyWith(t, { waitingFor: w }) : t;
        })
      : [];
    const workflow: Workflow = copyWith(run, {
      tasks: shown,
      startTime: run.createTime,
      ...retriedTime(run),
    });
    if (run.status === 'RUNNING' || run.status === 'PAUSED')
      workflow.waitingFor = runWaiting(run, tasks, why);
    return workflow;
  }

  async status(
    workflowId: string,
    includeOutput: boolean,
    includeVariables: boolean,
  ): Promise<WorkflowStatusView> {
    const hot = await this.store.read((tx) => tx.getRun(workflowId));
    const run = hot ?? (await this.archivedRun(workflowId, includeOutput || includeVariables));
    const view: WorkflowStatusView = { workflowId: run.workflowId, status: run.status };
    if (run.correlationId !== undefined) view.correlationId = run.correlationId;
    if (includeOutput) view.output = run.output;
    if (includeVariables) view.variables = run.variables;
    return view;
  }

  /** A status view of an archived run: the index row, or the whole document when its output is asked for. */
  private async archivedRun(
    workflowId: string,
    needDocument: boolean,
  ): Promise<Pick<RunRecord, 'workflowId' | 'status' | 'correlationId' | 'output' | 'variables'>> {
    const row = await this.archive?.row(workflowId);
    if (!row || !this.archive) throw fail('RUN_NOT_FOUND', { workflowId });
    if (needDocument) return (await this.archive.document(row)).run;
    return {
      workflowId,
      status: row.status,
      output: {},
      variables: {},
      ...(row.correlationId !== undefined && { correlationId: row.correlationId }),
    };
  }

  /** Hot runs and archived ones, one ordered answer (archived rows are marked `archived`). */
  async search(query: RunQuery): Promise<SearchResult<WorkflowSummary>> {
    return this.store.read(async (tx) => {
      const archivedHits = this.archive
        ? (await tx.searchArchivedRuns(copyWith(query, { start: 0, size: 0 }))).totalHits
        : 0;
      if (archivedHits === 0) {
        const { totalHits, results } = await tx.searchRuns(query);
        return { totalHits, results: results.map(toSummary) };
      }
      return mergeRunPages(query, tx, toSummary, archivedSummary);
    });
  }

  async correlated(
    name: string,
    correlationId: string,
    includeClosed: boolean,
    includeTasks: boolean,
  ): Promise<Workflow[]> {
    const { hot, archived } = await this.store.read(async (tx) => {
      const runs = await tx.runsByCorrelationId(name, correlationId, includeClosed);
      const out: Workflow[] = [];
      for (const run of runs) {
        out.push(
          copyWith(run, {
            tasks: includeTasks ? await tx.getRunTasks(run.workflowId) : [],
            startTime: run.createTime,
            ...retriedTime(run),
          }),
        );
      }
      // Archived runs have all ended: they count as closed.
      const rows =
        includeClosed && this.archive ? await tx.archivedRunsByCorrelationId(name, correlationId) : [];
      return { hot: out, archived: rows };
    });
    for (const row of archived) {
      if (!this.archive || hot.some((w) => w.workflowId === row.workflowId)) continue;
      hot.push(archivedWorkflow({ row, doc: await this.archive.document(row) }, includeTasks));
    }
    return hot.sort((a, b) => a.createTime - b.createTime || (a.workflowId < b.workflowId ? -1 : 1));
  }

  /**
   * Conductor's `POST /api/workflow/correlated/batch`: the runs of each name with each
   * correlation id, keyed by correlation id.
   */
  async correlatedBatch(
    names: readonly string[],
    correlationIds: readonly string[],
    includeClosed: boolean,
    includeTasks: boolean,
  ): Promise<Record<string, Workflow[]>> {
    const out: Record<string, Workflow[]> = {};
    for (const correlationId of new Set(correlationIds)) {
      const runs: Workflow[] = [];
      for (const name of new Set(names))
        runs.push(...(await this.correlated(name, correlationId, includeClosed, includeTasks)));
      out[correlationId] = runs;
    }
    return out;
  }
}

/** A search row of an archived run: the index row's fields; input and output are in the document. */
export function archivedSummary(row: ArchivedRun): WorkflowSummary {
  const summary: WorkflowSummary = {
    workflowType: row.workflowName,
    version: row.workflowVersion,
    workflowId: row.workflowId,
    startTime: iso(row.createTime),
    updateTime: iso(row.updateTime),
    status: row.status,
    input: '{}',
    output: '{}',
    executionTime: row.endTime > 0 ? row.endTime - row.createTime : 0,
    failedReferenceTaskNames: '',
    failedTaskNames: [],
    priority: row.priority,
    archived: true,
  };
  if (row.correlationId !== undefined) summary.correlationId = row.correlationId;
  if (row.endTime > 0) summary.endTime = iso(row.endTime);
  if (row.parentWorkflowId !== undefined) summary.parentWorkflowId = row.parentWorkflowId;
  return summary;
}

/** Parses `from`/`to`: epoch milliseconds or an ISO-8601 date. */
export function parseTime(value: string | undefined, field: string): number | undefined {
  if (value === undefined || value === '') return undefined;
  // Epoch ms past year 9999 (any number of digits) is "the latest time", never a BIGINT overflow.
  if (/^\d+$/.test(value)) return storableTime(Number(value));
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) {
    throw fail('TIME_INVALID', { field }, [
      { path: `querystring.${field}`, message: 'not a time', invalidValue: value },
    ]);
  }
  return ms;
}

/**
 * Conductor's `lastRetriedTime`, computed on read: a run made by retry was retried when it was
 * made (Baton's retry makes a new linked run); a run reopened by a dead-letter requeue, at its
 * last reopening. Absent otherwise.
 */
function retriedTime(run: RunRecord): { lastRetriedTime?: number } {
  const reopened = run.reopened?.[run.reopened.length - 1]?.time;
  if (reopened !== undefined) return { lastRetriedTime: reopened };
  return run.links.retry_of !== undefined ? { lastRetriedTime: run.createTime } : {};
}

/** A start request's inline definition with the defaults registration gives (version 1, schema 2). */
function inlineDefinition(def: WorkflowDef): WorkflowDef {
  return copyWith(def, { version: def.version ?? 1, schemaVersion: def.schemaVersion ?? 2 });
}
