import {
  isTerminalTaskStatus,
  isTerminalWorkflowStatus,
  type TaskRecord,
  type TaskMock,
  type TaskResult,
  type TestRunRequest,
  type Workflow,
  type WorkflowDef,
} from '@baton/protocol';

import { ManualClock, type Clock } from '../clock.js';
import { errorMessage, fail } from '../errors.js';
import {
  isWorkerTask,
  kindNameOf,
  systemCallKindOf,
  workerTaskNames,
  type EngineSettings,
} from '../engine/index.js';
import type { AsyncScriptRunner } from '../scripting/async-scripts.js';
import { openSqliteStore } from '../store-sqlite/sqlite-store.js';
import type { Store, Tx } from '../store/store.js';
import { afterCommit, DecisionApplier } from '../decisions/decision-applier.js';
import { MAX_NESTING } from '../decisions/linked-runs.js';
import type { MetadataService } from './metadata-service.js';
import { fireNextVirtualTimers } from '../loops/virtual-timers.js';
import { copyWith } from '../copy-with.js';

/** Upper bound on steps (mocked results applied, timer jumps) of one test run (a loop without end stops here). */
const MAX_STEPS = 20_000;

/**
 * Test runs (`POST /api/workflow/test`): the real interpreter and executor on a throwaway
 * in-memory SQLite store with a virtual clock. Each open task with a mock left for its ref gets
 * the next one as its result; time jumps over retry delays and to the next due timer (a WAIT's
 * duration, a workflow timeout) when nothing else can move the run, so a run takes no wall time. Nothing
 * outside is called: no worker sees the tasks (they live in the throwaway store) and no system
 * task executor runs there. A task without a mock leaves the run as it stands (RUNNING), and
 * its `waitingFor` says it has no mock. A task whose ref had mocks, all used by earlier attempts
 * or loop iterations, fails with a terminal error naming it: the mocks ran out, and a run left
 * RUNNING there would not say so.
 */
/**
 * Moves a test run's virtual clock to its next due timer (a WAIT's `duration`, a retry) and
 * fires every timer due then; answers whether anything fired. Supplied by the timer store.
 */
export type VirtualTimers = (
  sandbox: Store,
  executor: DecisionApplier,
  clock: ManualClock,
) => Promise<boolean>;

export class TestRunService {
  constructor(
    private readonly store: Store,
    private readonly metadata: MetadataService,
    private readonly clock: Clock,
    private readonly settings: EngineSettings,
    private readonly scripts: AsyncScriptRunner,
    private readonly timers: VirtualTimers = fireNextVirtualTimers,
  ) {}

  /** The inline definition (checked as a registration would be), or the registered one by name. */
  private async definitionOf(request: TestRunRequest): Promise<WorkflowDef> {
    if (request.workflowDef !== undefined) {
      const definition: WorkflowDef = copyWith(request.workflowDef, {
        version: request.workflowDef.version ?? 1,
      });
      await this.metadata.validateWorkflow(definition);
      return definition;
    }
    if (request.name === undefined) {
      const message = errorMessage('TEST_RUN_DEFINITION_MISSING', {});
      throw fail('TEST_RUN_DEFINITION_MISSING', {}, [{ path: 'body.workflowDef', message }]);
    }
    const {
      createTime: _created,
      updateTime: _updated,
      ...definition
    } = await this.metadata.getWorkflow(request.name, request.version);
    return definition;
  }

  async run(request: TestRunRequest): Promise<Workflow> {
    const definition = await this.definitionOf(request);
    // The run's retry settings come from the registered task definitions, as in a real run.
    const taskDefs = await this.store.read((tx) => tx.getTaskDefs(workerTaskNames(definition)));

    const sandbox = openSqliteStore({ file: ':memory:', synchronous: 'NORMAL' });
    try {
      await sandbox.migrate();
      const clock = new ManualClock(this.clock.now());
      const executor = new DecisionApplier(clock, this.settings, this.scripts);
      const run = await sandbox.transaction(async (tx) => {
        for (const def of taskDefs.values()) await tx.upsertTaskDef(def);
        return executor.startRun(
          tx,
          {
            definition,
            input: request.input ?? {},
            priority: request.priority ?? 0,
            taskToDomain: request.taskToDomain ?? {},
            ...(request.correlationId !== undefined && { correlationId: request.correlationId }),
          },
          afterCommit(),
        );
      });
      const mocks = new MockQueue(request.taskRefToMockOutput ?? {});
      for (let step = 0; step < MAX_STEPS; step++) {
        const outcome = await sandbox.transaction(async (tx): Promise<'moved' | 'stop' | 'timers'> => {
          const current = await tx.lockRun(run.workflowId);
          if (!current || isTerminalWorkflowStatus(current.status)) return 'stop';
          const tasks = await tx.getRunTasks(run.workflowId);
          const next = nextMocked(tasks, mocks) ?? ranOut(tasks, mocks);
          // A task left waiting for an answer that no mock gives leaves the run as it stands
          // (its timeouts are not run out); otherwise only timers can move the run on.
          if (!next) return (await waitsForAnswerIn(tx, tasks, 0)) ? 'stop' : 'timers';
          const { task, mock } = next;
          // Virtual time: the attempt becomes visible (retry delay), waits, then runs.
          const message = await tx.getMessage(task.taskId);
          if (message && message.visibleAt > clock.now()) clock.set(message.visibleAt);
          clock.advance(Math.max(0, mock.queueWaitTime ?? 0) + Math.max(0, mock.executionTime ?? 0));
          const result: TaskResult = {
            taskId: task.taskId,
            workflowInstanceId: run.workflowId,
            status: mock.status ?? 'COMPLETED',
            outputData: mock.output ?? {},
            workerId: 'test-run',
            ...(mock.reasonForIncompletion !== undefined && {
              reasonForIncompletion: mock.reasonForIncompletion,
            }),
          };
          await executor.handle(tx, run.workflowId, { type: 'TASK_RESULT', result }, afterCommit());
          return 'moved';
        });
        if (outcome === 'stop') break;
        // No mock applies: jump virtual time to the next timer (a WAIT of a day ends at once).
        if (outcome === 'timers' && !(await this.timers(sandbox, executor, clock))) break;
      }
      return await sandbox.read(async (tx) => {
        const final = (await tx.getRun(run.workflowId)) ?? run;
        return withoutMockWaits(
          copyWith(final, { tasks: await tx.getRunTasks(run.workflowId), startTime: final.createTime }),
        );
      });
    } finally {
      await sandbox.close();
    }
  }
}

/** The mocks of each ref, consumed in order: attempt n of a ref gets its n-th mock. */
class MockQueue {
  private readonly used = new Map<string, number>();
  constructor(private readonly mocks: Record<string, TaskMock[]>) {}

  peek(ref: string): { key: string; mock: TaskMock } | undefined {
    // A loop iteration (`x__2`) uses the mocks of its ref when it has its own, else those of `x`.
    for (const key of [ref, ref.replace(/__\d+$/, '')]) {
      const list = Object.hasOwn(this.mocks, key) ? this.mocks[key] : undefined;
      const mock = list?.[this.used.get(key) ?? 0];
      if (mock) return { key, mock };
    }
    return undefined;
  }

  take(key: string): void {
    this.used.set(key, (this.used.get(key) ?? 0) + 1);
  }

  /** The ref whose mocks `ref` would use and how many it had, when it had any (all used now). */
  given(ref: string): { key: string; count: number } | undefined {
    for (const key of [ref, ref.replace(/__\d+$/, '')]) {
      const list = Object.hasOwn(this.mocks, key) ? this.mocks[key] : undefined;
      if (list && list.length > 0) return { key, count: list.length };
    }
    return undefined;
  }
}

/**
 * An open task waiting for an answer whose ref's mocks are all used (a loop body given fewer
 * mocks than iterations): a terminal failure that names it, so the test run ends and says why.
 */
function ranOut(
  tasks: readonly TaskRecord[],
  mocks: MockQueue,
): { task: TaskRecord; mock: TaskMock } | undefined {
  for (const task of tasks) {
    if (!waitsForAnswer(task)) continue;
    const given = mocks.given(task.referenceTaskName);
    if (!given) continue;
    const mocksOf =
      given.count === 1
        ? `the 1 mock given for ${given.key} was`
        : `the ${given.count} mocks given for ${given.key} were`;
    return {
      task,
      mock: {
        status: 'FAILED_WITH_TERMINAL_ERROR',
        reasonForIncompletion: `no mock left for ${task.referenceTaskName}: ${mocksOf} used by earlier attempts or iterations; give one per attempt and iteration`,
      },
    };
  }
  return undefined;
}

/** A test run left RUNNING: each task that waits for an answer says that no mock gives one. */
function withoutMockWaits(run: Workflow): Workflow {
  if (run.status !== 'RUNNING') return run;
  const waiting: NonNullable<Workflow['waitingFor']> = [];
  const tasks = run.tasks.map((task) => {
    if (!waitsForAnswer(task)) return task;
    const waitingFor = {
      reason: 'external' as const,
      message: `waiting: no mock for ${task.referenceTaskName} (a test run calls no worker; give one in taskRefToMockOutput, or in the file of baton test --mocks)`,
    };
    waiting.push(
      copyWith(waitingFor, {
        taskId: task.taskId,
        referenceTaskName: task.referenceTaskName,
        taskType: task.taskType,
      }),
    );
    return copyWith(task, { waitingFor });
  });
  return waiting.length > 0 ? copyWith(run, { tasks, waitingFor: waiting }) : run;
}

function nextMocked(
  tasks: readonly TaskRecord[],
  mocks: MockQueue,
): { task: TaskRecord; mock: TaskMock } | undefined {
  for (const task of tasks) {
    if (isTerminalTaskStatus(task.status)) continue;
    const found = mocks.peek(task.referenceTaskName);
    if (!found) continue;
    mocks.take(found.key);
    return { task, mock: found.mock };
  }
  return undefined;
}

/**
 * Whether an open task of the run, or of one of its running child runs (which get no mocks),
 * waits for an answer from outside: then no timer is run out.
 */
async function waitsForAnswerIn(tx: Tx, tasks: readonly TaskRecord[], depth: number): Promise<boolean> {
  if (tasks.some(waitsForAnswer)) return true;
  if (depth >= MAX_NESTING) return false;
  for (const task of tasks) {
    if (task.subWorkflowId === undefined || isTerminalTaskStatus(task.status)) continue;
    if (await waitsForAnswerIn(tx, await tx.getRunTasks(task.subWorkflowId), depth + 1)) return true;
  }
  return false;
}

/**
 * Whether an open task waits for an answer from outside (a worker, a person, a signal or a
 * message): without a mock for it the test run stops there, RUNNING, as Conductor's does.
 */
function waitsForAnswer(task: TaskRecord): boolean {
  if (isTerminalTaskStatus(task.status)) return false;
  // Worker tasks and system calls (HTTP, CALL_TOOL, …): a test run never calls out, mocks answer.
  if (isWorkerTask(task.workflowTask) || systemCallKindOf(task.workflowTask.type) !== undefined) return true;
  switch (kindNameOf(task.workflowTask)) {
    case 'HUMAN':
    case 'PULL_WORKFLOW_MESSAGES':
      return true;
    case 'WAIT':
      return task.callbackAfterSeconds === 0;
    default:
      return false;
  }
}
