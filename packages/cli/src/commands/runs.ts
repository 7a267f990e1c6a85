import type { JsonObject, WorkflowStatus } from '@baton/sdk';
import { Option, type Command } from 'commander';

import { parseSince, readInput } from '../files.js';
import { watchRun } from '../live-view.js';
import {
  duration,
  EXIT,
  exitCodeFor,
  paint,
  print,
  printJson,
  statusColour,
  table,
  useColour,
} from '../output.js';
import { describeRun } from '../run-view.js';
import { clientFrom, UsageError, type GlobalOptions } from '../settings.js';

const STATUSES: WorkflowStatus[] = ['RUNNING', 'COMPLETED', 'FAILED', 'TIMED_OUT', 'TERMINATED', 'PAUSED'];

function integer(name: string, min: number, max: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min || n > max)
      throw new UsageError(`${name} must be an integer from ${min} to ${max}, got '${value}'`);
    return n;
  };
}

export function runCommands(program: Command): void {
  program
    .command('start')
    .description('start a run; with --wait, follow it live and exit with its status')
    .argument('<name>', 'workflow definition name')
    .option('-i, --input <json|@file>', "the run's input: inline JSON, @file.json, @file.yaml or @- (stdin)")
    .option(
      '--version <n>',
      'definition version (latest when omitted)',
      integer('--version', 1, 2_147_483_647),
    )
    .option('--correlation-id <id>', "the caller's own id for the run")
    .option('--priority <n>', 'priority 0..99', integer('--priority', 0, 99))
    .option('--idempotency-key <key>', 'a repeated key does not start a second run')
    .option('-w, --wait', 'follow the run until it ends; the exit code reflects its status')
    .option(
      '--timeout <seconds>',
      'with --wait: stop waiting after this long; the run goes on, and the exit code is 6',
      integer('--timeout', 1, 31_536_000),
    )
    .action(
      async (
        name: string,
        opts: {
          input?: string;
          version?: number;
          correlationId?: string;
          priority?: number;
          idempotencyKey?: string;
          wait?: boolean;
          timeout?: number;
        },
        cmd: Command,
      ) => {
        const globals = cmd.optsWithGlobals<GlobalOptions>();
        const client = clientFrom(globals);
        const id = await client.startWorkflow(name, {
          input: readInput(opts.input) as JsonObject,
          ...(opts.version !== undefined && { version: opts.version }),
          ...(opts.correlationId !== undefined && { correlationId: opts.correlationId }),
          ...(opts.priority !== undefined && { priority: opts.priority }),
          ...(opts.idempotencyKey !== undefined && {
            idempotencyKey: opts.idempotencyKey,
            idempotencyStrategy: 'RETURN_EXISTING' as const,
          }),
        });
        if (!opts.wait) return globals.json ? printJson({ workflowId: id }) : print(id);
        if (!globals.json) process.stderr.write(`started ${name} ${id}\n`);
        // Ctrl-C stops following, not the run: say where to find it again.
        process.once('SIGINT', () => {
          process.stderr.write(`\nstopped following ${id}; the run goes on (baton show ${id})\n`);
          process.exit(130);
        });
        const run = await watchRun(client, id, {
          // JSON output is for scripts: no live frames on stdout.
          live: !globals.json && process.stdout.isTTY === true,
          colour: useColour(),
          ...(opts.timeout !== undefined && { timeoutMs: opts.timeout * 1000 }),
          ...(globals.json && { out: process.stderr }),
        });
        // Still open when --timeout ran out: the wait stopped, not the run.
        const stoppedWaiting = run.status === 'RUNNING' || run.status === 'PAUSED';
        if (globals.json)
          printJson({
            workflowId: id,
            status: run.status,
            output: run.output,
            reasonForIncompletion: run.reasonForIncompletion,
            ...(stoppedWaiting && { stoppedWaiting: true }),
          });
        else if (stoppedWaiting) {
          const waited = opts.timeout !== undefined ? ` after ${opts.timeout} s` : '';
          print(
            `${paint('stopped waiting', 'yellow')}${waited}: the run is still ${paint(run.status, statusColour(run.status))} (baton show ${id}); exit code ${EXIT.open}`,
          );
        } else {
          if (run.reasonForIncompletion)
            print(
              paint(
                `why it ${run.status === 'TERMINATED' ? 'was terminated' : 'failed'}: ${run.reasonForIncompletion}`,
                'red',
              ),
            );
          print(`${paint(run.status, statusColour(run.status))} output: ${JSON.stringify(run.output)}`);
        }
        process.exitCode = exitCodeFor(run.status);
      },
    );

  program
    .command('runs')
    .description('list runs, newest first')
    .addOption(new Option('--status <status>', 'only runs in this status').choices(STATUSES))
    .option('--name <name>', 'only runs of this definition')
    .option('--since <when>', 'only runs started since: 30m, 2h, 7d or an ISO date')
    .option('--correlation-id <id>', 'only runs with this correlation id')
    .option('--limit <n>', 'at most this many', integer('--limit', 1, 1000), 50)
    .action(
      async (
        opts: {
          status?: WorkflowStatus;
          name?: string;
          since?: string;
          correlationId?: string;
          limit: number;
        },
        cmd: Command,
      ) => {
        const globals = cmd.optsWithGlobals<GlobalOptions>();
        const result = await clientFrom(globals).searchWorkflows({
          size: opts.limit,
          sort: 'createTime:DESC',
          ...(opts.status && { status: opts.status }),
          ...(opts.name && { name: opts.name }),
          ...(opts.correlationId && { correlationId: opts.correlationId }),
          ...(opts.since && { from: parseSince(opts.since) }),
        });
        if (globals.json) return printJson(result);
        if (result.results.length === 0) return print('no runs');
        print(
          table(
            ['ID', 'NAME', 'VERSION', 'STATUS', 'STARTED', 'TOOK', 'REASON'],
            result.results.map((r) => [
              r.workflowId,
              r.workflowType,
              String(r.version),
              paint(r.status, statusColour(r.status)),
              r.startTime,
              r.endTime ? duration(r.executionTime) : '',
              (r.reasonForIncompletion ?? '').slice(0, 80),
            ]),
          ),
        );
        if (result.totalHits > result.results.length)
          print(paint(`${result.results.length} of ${result.totalHits}`, 'grey'));
      },
    );

  program
    .command('show')
    .description("a run's tasks as a tree, with their states and why the run waits or failed")
    .argument('<id>', 'run id')
    .action(async (id: string, _opts: unknown, cmd: Command) => {
      const globals = cmd.optsWithGlobals<GlobalOptions>();
      const run = await clientFrom(globals).getWorkflow(id);
      if (globals.json) return printJson(run);
      print(describeRun(run, Date.now(), useColour()));
    });

  controlCommands(program);
}

function controlCommands(program: Command): void {
  const newRun = (
    verb: string,
    description: string,
    call: (id: string, opts: Record<string, unknown>, globals: GlobalOptions) => Promise<string>,
  ) =>
    program
      .command(verb)
      .description(description)
      .argument('<id>', 'run id')
      .action(async (id: string, opts: Record<string, unknown>, cmd: Command) => {
        const globals = cmd.optsWithGlobals<GlobalOptions>();
        const newId = await call(id, opts, globals);
        if (globals.json) printJson({ workflowId: newId, [`${verb}Of`]: id });
        else print(newId);
      });

  newRun(
    'retry',
    'a new run continuing from the failed task (completed tasks reused); prints its id',
    (id, _o, g) => clientFrom(g).retryWorkflow(id),
  );
  newRun('restart', 'a new run from the first task with the same input; prints its id', (id, o, g) =>
    clientFrom(g).restartWorkflow(id, o.latest === true),
  ).option('--latest', 'use the latest definition version');
  newRun('rerun', 'a new run from a named task; prints its id', (id, o, g) =>
    clientFrom(g).rerunWorkflow(id, {
      ...(typeof o.fromTask === 'string' && { reRunFromTaskRefName: o.fromTask }),
      ...(typeof o.taskInput === 'string' && { taskInput: readInput(o.taskInput) as JsonObject }),
      ...(typeof o.input === 'string' && { workflowInput: readInput(o.input) as JsonObject }),
    }),
  )
    .option('--from-task <ref>', 'task reference name to rerun from')
    .option('--task-input <json|@file>', "that task's new input")
    .option('--input <json|@file>', 'new workflow input');

  const control = (
    verb: string,
    description: string,
    call: (id: string, opts: Record<string, unknown>, globals: GlobalOptions) => Promise<unknown>,
  ) =>
    program
      .command(verb)
      .description(description)
      .argument('<id>', 'run id')
      .action(async (id: string, opts: Record<string, unknown>, cmd: Command) => {
        const globals = cmd.optsWithGlobals<GlobalOptions>();
        await call(id, opts, globals);
        const run = await clientFrom(globals).getWorkflow(id, false);
        if (globals.json) printJson({ workflowId: id, status: run.status });
        else print(`${id} ${paint(run.status, statusColour(run.status))}`);
      });
  control('terminate', 'end a running or paused run; open tasks are canceled', (id, o, g) =>
    clientFrom(g).terminateWorkflow(id, typeof o.reason === 'string' ? o.reason : undefined),
  ).option('--reason <text>', 'recorded as the reason');
  control('pause', 'stop scheduling new tasks (waiting tasks stay waiting)', (id, _o, g) =>
    clientFrom(g).pauseWorkflow(id),
  );
  control('resume', 'continue a paused run', (id, _o, g) => clientFrom(g).resumeWorkflow(id));
}
