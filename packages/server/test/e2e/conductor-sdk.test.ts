import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import {
  EventClient,
  orkesConductorClient,
  SchedulerClient,
  TaskClient,
  TaskManager,
  TaskResultStatusEnum,
  WorkflowExecutor,
  type ConductorLogger,
  type ConductorWorker,
  type Task,
  type TaskRunnerEventsListener,
} from '@io-orkes/conductor-javascript';
import type { Workflow } from '@baton/protocol';

import {
  getJson,
  httpOk,
  postText,
  startBaton,
  waitFor,
  type BatonProcess,
} from '../helpers/baton-process.js';
import { createTestDatabase, enabledStores, type TestDatabase } from '../helpers/postgres.js';
import { workerTaskDefs, workflowDef } from '../helpers/definitions.js';

/**
 * Conductor's own JavaScript SDK (@io-orkes/conductor-javascript v4), used as shipped — only its
 * ordinary options (serverUrl, logger, a fetch, worker id, poll interval, concurrency, batch poll
 * timeout) — works a three-task workflow on a Baton process to completion.
 */

const WORKFLOW = 'e2e_sdk_flow';
const WORKER_ID = 'sdk-worker-1';
const NAMES = ['ada', 'grace', 'barbara'] as const;

const taskDefs = workerTaskDefs(['e2e_sdk_greet', 'e2e_sdk_measure', 'e2e_sdk_report']);

/** A run that waits for a signal: for the SDK's variables and synchronous signal calls. */
const GATE = 'e2e_sdk_gate';
const gateDefinition = workflowDef(GATE, [
  { name: 'gate', taskReferenceName: 'gate', type: 'WAIT', inputParameters: {} },
]);

const definition = workflowDef(
  WORKFLOW,
  [
    {
      name: 'e2e_sdk_greet',
      taskReferenceName: 'greet',
      type: 'SIMPLE',
      inputParameters: { name: '${workflow.input.name}' },
    },
    {
      name: 'e2e_sdk_measure',
      taskReferenceName: 'measure',
      type: 'SIMPLE',
      inputParameters: { text: '${greet.output.greeting}' },
    },
    {
      name: 'e2e_sdk_report',
      taskReferenceName: 'report',
      type: 'SIMPLE',
      inputParameters: {
        name: '${workflow.input.name}',
        upper: '${measure.output.upper}',
        length: '${measure.output.length}',
      },
    },
  ],
  { summary: '${report.output.summary}', length: '${measure.output.length}' },
);

function expectedOutput(name: string): { summary: string; length: number } {
  const greeting = `hello ${name}`;
  return { summary: `${name}:${greeting.toUpperCase()}:${greeting.length}`, length: greeting.length };
}

/** A worker's answer: completed with this output. */
function complete(
  outputData: Record<string, unknown>,
): Promise<{ status: 'COMPLETED'; outputData: Record<string, unknown> }> {
  return Promise.resolve({ status: 'COMPLETED', outputData });
}

function text(value: unknown): string {
  if (typeof value !== 'string') throw new Error(`expected a string input, got ${JSON.stringify(value)}`);
  return value;
}

/** A wire log of the SDK's requests, made through the SDK's documented `customFetch` argument. */
interface Exchange {
  method: string;
  path: string;
  status: number;
}

function recordingFetch(exchanges: Exchange[]): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    const [href, method] =
      input instanceof Request
        ? [input.url, init?.method ?? input.method]
        : [typeof input === 'string' ? input : input.href, init?.method ?? 'GET'];
    exchanges.push({ method, path: new URL(href).pathname, status: response.status });
    return response;
  };
}

void describe('e2e: the Conductor JavaScript SDK against Baton', () => {
  const store = enabledStores().includes('sqlite') ? 'sqlite' : 'postgres';

  void it(
    `a TaskManager worker completes a three-task workflow (${store})`,
    { timeout: 120_000 },
    async () => {
      // The SDK reads these before its config; the test must not depend on the caller's shell.
      for (const key of Object.keys(process.env)) if (key.startsWith('CONDUCTOR_')) delete process.env[key];

      const db: TestDatabase | undefined =
        store === 'postgres' ? await createTestDatabase('baton_e2e_sdk') : undefined;
      let baton: BatonProcess | undefined;
      let manager: TaskManager | undefined;
      const sdkLog: string[] = [];
      const sdkErrors: string[] = [];
      const exchanges: Exchange[] = [];
      const received: Array<{
        taskId: string;
        taskType: string;
        pollCount: number | undefined;
        workerId: string | undefined;
      }> = [];
      let failure: Error | undefined;

      try {
        baton = await startBaton({ name: `sdk-${store}`, ...(db ? { databaseUrl: db.url } : {}) });
        const base = baton.url;
        await httpOk('POST', `${base}/api/metadata/taskdefs`, taskDefs);
        await httpOk('POST', `${base}/api/metadata/workflow`, definition);
        await httpOk('POST', `${base}/api/metadata/workflow`, gateDefinition);

        const render = (args: unknown[]) =>
          args
            .map((a) => (a instanceof Error ? a.message : typeof a === 'string' ? a : JSON.stringify(a)))
            .join(' ');
        const logger: ConductorLogger = {
          debug: () => {},
          info: (...args: unknown[]) => sdkLog.push(`INFO ${render(args)}`),
          warn: (...args: unknown[]) => sdkLog.push(`WARN ${render(args)}`),
          error: (...args: unknown[]) => {
            const line = render(args);
            sdkLog.push(`ERROR ${line}`);
            sdkErrors.push(line);
          },
        };
        const listener: TaskRunnerEventsListener = {
          onPollFailure: (e) => void sdkErrors.push(`poll failure on ${e.taskType}: ${e.cause.message}`),
          onTaskUpdateFailure: (e) =>
            void sdkErrors.push(`update failure on ${e.taskId}: ${e.cause.message}`),
          onTaskExecutionFailure: (e) =>
            void sdkErrors.push(`execution failure on ${e.taskId}: ${e.cause.message}`),
        };

        const client = await orkesConductorClient({ serverUrl: base, logger }, recordingFetch(exchanges));

        // One run waits in the queue before any worker polls …
        const executor = new WorkflowExecutor(client);
        const firstRun = await executor.startWorkflow({
          name: WORKFLOW,
          version: 1,
          input: { name: NAMES[0] },
          correlationId: 'sdk-0',
        });
        assert.equal(
          typeof firstRun,
          'string',
          `SDK startWorkflow (POST /api/workflow) answered ${JSON.stringify(firstRun)}`,
        );

        const record = (task: Task) => {
          received.push({
            taskId: task.taskId ?? '(none)',
            taskType: task.taskType ?? '(none)',
            pollCount: task.pollCount,
            workerId: task.workerId,
          });
          return task.inputData ?? {};
        };
        const workers: ConductorWorker[] = [
          {
            taskDefName: 'e2e_sdk_greet',
            execute: (task) => {
              const input = record(task);
              return complete({ greeting: `hello ${text(input.name)}` });
            },
          },
          {
            taskDefName: 'e2e_sdk_measure',
            execute: (task) => {
              const input = record(task);
              const greeting = text(input.text);
              return complete({ length: greeting.length, upper: greeting.toUpperCase() });
            },
          },
          {
            taskDefName: 'e2e_sdk_report',
            execute: (task) => {
              const input = record(task);
              const length = typeof input.length === 'number' ? input.length : NaN;
              return complete({ summary: `${text(input.name)}:${text(input.upper)}:${length}` });
            },
          },
        ];
        manager = new TaskManager(client, workers, {
          logger,
          eventListeners: [listener],
          options: { workerID: WORKER_ID, pollInterval: 50, concurrency: 2, batchPollingTimeout: 1000 },
        });
        manager.startPolling();

        // … and two more start while the workers are long-polling (Baton's own start endpoint).
        const laterRuns = await Promise.all(
          NAMES.slice(1).map((name, i) =>
            postText(`${base}/api/workflow/${WORKFLOW}`, {
              input: { name },
              correlationId: `sdk-${i + 1}`,
              version: 1,
            }),
          ),
        );
        const runIds = [firstRun, ...laterRuns];

        const runs = await waitFor(
          async () => {
            if (sdkErrors.length > 0) throw new Error(`the SDK reported errors:\n${sdkErrors.join('\n')}`);
            const all = await Promise.all(
              runIds.map((id) => getJson<Workflow>(`${base}/api/workflow/${id}`)),
            );
            const ended = all.filter((r) => r.status !== 'RUNNING');
            if (ended.some((r) => r.status !== 'COMPLETED')) {
              throw new Error(
                `a run ended badly: ${JSON.stringify(ended.map((r) => [r.workflowId, r.status, r.reasonForIncompletion]))}`,
              );
            }
            return ended.length === all.length ? all : undefined;
          },
          {
            timeoutMs: 30_000,
            what: 'the SDK worker to complete all runs',
            describe: async () => {
              const all = await Promise.all(
                runIds.map((id) => getJson<Workflow>(`${base}/api/workflow/${id}`)),
              );
              return all
                .map(
                  (r) =>
                    `${r.workflowId} ${r.status}: ${r.tasks.map((t) => `${t.referenceTaskName}=${t.status}/poll${t.pollCount}`).join(', ')}`,
                )
                .join('\n');
            },
          },
        );

        await manager.stopPolling();
        manager = undefined;

        runs.forEach((run, i) => {
          const name = NAMES[i]!;
          assert.equal(run.status, 'COMPLETED');
          assert.deepEqual(run.output, expectedOutput(name), `output of run ${run.workflowId}`);
          assert.deepEqual(
            run.tasks.map((t) => [t.referenceTaskName, t.taskType, t.status]),
            [
              ['greet', 'e2e_sdk_greet', 'COMPLETED'],
              ['measure', 'e2e_sdk_measure', 'COMPLETED'],
              ['report', 'e2e_sdk_report', 'COMPLETED'],
            ],
            `tasks of run ${run.workflowId}`,
          );
          for (const t of run.tasks) {
            assert.equal(t.pollCount, 1, `pollCount of ${t.referenceTaskName} in run ${run.workflowId}`);
            assert.equal(
              t.workerId,
              WORKER_ID,
              `workerId of ${t.referenceTaskName} in run ${run.workflowId}`,
            );
          }
          assert.deepEqual(run.tasks[0]!.outputData, { greeting: `hello ${name}` });
          assert.deepEqual(run.tasks[2]!.inputData, {
            name,
            upper: `HELLO ${name.toUpperCase()}`,
            length: `hello ${name}`.length,
          });
        });

        // Each task reached the SDK worker exactly once, marked as polled once, by this worker.
        const taskIds = runs.flatMap((r) => r.tasks.map((t) => t.taskId));
        assert.equal(
          received.length,
          taskIds.length,
          `tasks executed by the SDK: ${JSON.stringify(received)}`,
        );
        assert.deepEqual(new Set(received.map((r) => r.taskId)), new Set(taskIds));
        for (const r of received) {
          assert.equal(r.pollCount, 1, `pollCount as handed to the SDK (${r.taskId})`);
          assert.equal(r.workerId, WORKER_ID, `workerId as handed to the SDK (${r.taskId})`);
        }

        // The run-reading API the SDK calls: task and run search in Conductor's query form, runs
        // by correlation ids, variables, the synchronous signal, and remove (archive, delete).
        const tasksFound = await new TaskClient(client).search(
          0,
          10,
          '',
          '*',
          'taskType IN (e2e_sdk_greet,e2e_sdk_report) AND status IN (COMPLETED)',
        );
        assert.equal(tasksFound?.totalHits, 6, `SDK task search: ${JSON.stringify(tasksFound)}`);
        const runsFound = await executor.search(
          0,
          10,
          `workflowType IN (${WORKFLOW}) AND status IN (COMPLETED)`,
          '*',
        );
        assert.equal(runsFound?.totalHits, 3, `SDK run search: ${JSON.stringify(runsFound)}`);
        const byCorrelation = await executor.getByCorrelationIds(
          { workflowNames: [WORKFLOW], correlationIds: ['sdk-0', 'sdk-1'] },
          true,
          false,
        );
        assert.deepEqual(Object.keys(byCorrelation ?? {}).sort(), ['sdk-0', 'sdk-1']);
        assert.equal(byCorrelation?.['sdk-0']?.[0]?.workflowId, firstRun);

        const gateRun = await executor.startWorkflow({ name: GATE, version: 1, input: {} });
        const withVariables = await executor.updateVariables(gateRun, { stage: 'review' });
        assert.deepEqual(withVariables?.variables, { stage: 'review' });
        const signaled = await executor.signal(gateRun, TaskResultStatusEnum.COMPLETED, { approved: true });
        assert.ok(signaled?.isTargetWorkflow(), `SDK signal: ${JSON.stringify(signaled)}`);
        assert.equal(signaled.getWorkflow().status, 'COMPLETED');

        await executor.deleteWorkflow(firstRun, true);
        const archivedRun = await getJson<Workflow>(`${base}/api/workflow/${firstRun}`);
        assert.equal(archivedRun.archived, true);
        assert.deepEqual(archivedRun.output, expectedOutput(NAMES[0]));
        await executor.deleteWorkflow(gateRun, false);
        const afterDelete = await fetch(`${base}/api/workflow/${gateRun}`);
        assert.equal(afterDelete.status, 404);

        // The SDK spoke the modern protocol: batch polls and update-v2, and Baton never said no.
        const paths = new Set(exchanges.map((e) => `${e.method} ${e.path}`));
        for (const type of ['e2e_sdk_greet', 'e2e_sdk_measure', 'e2e_sdk_report']) {
          assert.ok(
            paths.has(`GET /api/tasks/poll/batch/${type}`),
            `the SDK batch-polled ${type}: ${[...paths].join(', ')}`,
          );
        }
        assert.ok(
          paths.has('POST /api/tasks/update-v2'),
          `the SDK posted results with update-v2: ${[...paths].join(', ')}`,
        );
        assert.ok(!paths.has('POST /api/tasks'), 'the SDK never fell back to the legacy POST /api/tasks');
        const refused = exchanges.filter((e) => e.status >= 400 && e.path !== '/api/token');
        assert.deepEqual(refused, [], 'requests Baton refused');
        assert.deepEqual(sdkErrors, [], 'SDK errors');
      } catch (err) {
        failure = err instanceof Error ? err : new Error(String(err));
      } finally {
        if (manager) await manager.stopPolling();
        const exit = await baton?.stop();
        await db?.drop();
        if (failure === undefined && exit) {
          assert.equal(
            exit.code,
            0,
            `SIGTERM must stop Baton cleanly, got ${JSON.stringify(exit)}\n${baton?.logs() ?? ''}`,
          );
        }
      }
      if (failure !== undefined) {
        const base = failure;
        base.message += `\n--- SDK log ---\n${sdkLog.slice(-100).join('\n') || '(none)'}`;
        base.message += `\n--- SDK requests (last 50) ---\n${exchanges
          .slice(-50)
          .map((e) => `${e.method} ${e.path} -> ${e.status}`)
          .join('\n')}`;
        base.message += `\n--- Baton output ---\n${baton?.logs() || '(none)'}`;
        throw base;
      }
    },
  );
  void it(
    `the SDK's Conductor forms: start by name, updateTaskSync, test by name, handler lists, queue sizes, scheduler admin (${store})`,
    { timeout: 120_000 },
    async () => {
      for (const key of Object.keys(process.env)) if (key.startsWith('CONDUCTOR_')) delete process.env[key];
      const db: TestDatabase | undefined =
        store === 'postgres' ? await createTestDatabase('baton_e2e_sdk_forms') : undefined;
      let baton: BatonProcess | undefined;
      const exchanges: Exchange[] = [];
      try {
        baton = await startBaton({ name: `sdk-forms-${store}`, ...(db ? { databaseUrl: db.url } : {}) });
        const base = baton.url;
        await httpOk('POST', `${base}/api/metadata/taskdefs`, taskDefs);
        await httpOk('POST', `${base}/api/metadata/workflow`, definition);
        const client = await orkesConductorClient({ serverUrl: base }, recordingFetch(exchanges));
        const executor = new WorkflowExecutor(client);
        const tasks = new TaskClient(client);

        // startWorkflowByName: Conductor's bare input map, version/correlationId/priority as query.
        const byName = await executor.startWorkflowByName(
          WORKFLOW,
          { name: 'ada', input1: 'value1' },
          1,
          'by-name',
          5,
        );
        const started = await getJson<Workflow>(`${base}/api/workflow/${byName}`);
        assert.deepEqual(started.input, { name: 'ada', input1: 'value1' });
        assert.equal(started.correlationId, 'by-name');
        assert.equal(started.priority, 5);

        // Queue sizes in Conductor's shape for the named types.
        const sizes = await tasks.getQueueSizeForTask(['e2e_sdk_greet', 'e2e_sdk_unknown']);
        assert.deepEqual(sizes, { e2e_sdk_greet: 1, e2e_sdk_unknown: 0 });

        // updateTaskSync (both SDK forms) answers the run after the update.
        const afterGreet = await tasks.updateTaskSync(byName, 'greet', 'COMPLETED', {
          greeting: 'hello ada',
        });
        assert.equal(afterGreet.workflowId, byName);
        assert.equal(afterGreet.tasks?.find((t) => t.referenceTaskName === 'greet')?.status, 'COMPLETED');
        const afterMeasure = await executor.updateTaskSync(
          'measure',
          byName,
          TaskResultStatusEnum.COMPLETED,
          {
            length: 9,
            upper: 'HELLO ADA',
          },
        );
        assert.equal(afterMeasure.tasks?.find((t) => t.referenceTaskName === 'measure')?.status, 'COMPLETED');
        await assert.rejects(tasks.updateTaskSync('no-such-run', 'greet', 'COMPLETED', {}));

        // testWorkflow by name: the registered definition runs with mocks.
        const tested = await executor.testWorkflow({
          name: WORKFLOW,
          version: 1,
          input: { name: 'mock' },
          taskRefToMockOutput: {
            greet: [{ status: 'COMPLETED', output: { greeting: 'hi' } }],
            measure: [{ status: 'COMPLETED', output: { length: 2, upper: 'HI' } }],
            report: [{ status: 'COMPLETED', output: { summary: 'mocked' } }],
          },
        });
        assert.equal(tested.status, 'COMPLETED');
        assert.deepEqual(tested.output, { summary: 'mocked', length: 2 });

        // addEventHandler(s) send a list (Orkes's form).
        const events = new EventClient(client);
        const sdkHandler = (name: string) => ({
          name,
          event: `baton:${name}`,
          active: false,
          actions: [{ action: 'start_workflow' as const, start_workflow: { name: WORKFLOW } }],
        });
        await events.addEventHandler(sdkHandler('sdk_one'));
        await events.addEventHandlers([sdkHandler('sdk_two'), sdkHandler('sdk_three')]);
        const names = (await events.getAllEventHandlers()).map((h) => h.name).sort();
        assert.deepEqual(names, ['sdk_one', 'sdk_three', 'sdk_two']);
        assert.equal((await events.getEventHandlerByName('sdk_two')).event, 'baton:sdk_two');
        await assert.rejects(events.addEventHandlers([sdkHandler('sdk_four'), sdkHandler('sdk_one')]));
        assert.equal((await events.getAllEventHandlers()).length, 3, 'a refused list adds nothing');

        // Scheduler admin.
        const scheduler = new SchedulerClient(client);
        await scheduler.pauseAllSchedules();
        await scheduler.resumeAllSchedules();
        await scheduler.requeueAllExecutionRecords();

        const refused = exchanges.filter((e) => e.status >= 400 && e.path !== '/api/token');
        assert.deepEqual(
          refused.map((e) => `${e.method} ${e.path} ${e.status}`),
          ['POST /api/tasks/no-such-run/greet/COMPLETED/sync 404', 'POST /api/event 409'],
          'requests Baton refused',
        );
      } catch (err) {
        const failure = err instanceof Error ? err : new Error(String(err));
        failure.message += `\n--- SDK requests ---\n${exchanges.map((e) => `${e.method} ${e.path} -> ${e.status}`).join('\n')}`;
        failure.message += `\n--- Baton output ---\n${baton?.logs() || '(none)'}`;
        throw failure;
      } finally {
        await baton?.stop();
        await db?.drop();
      }
    },
  );
});
