import type { JsonObject, TaskMock, WorkflowDef } from '@baton/sdk';
import type { Command } from 'commander';

import { readDocument, readInput } from '../files.js';
import { exitCodeFor, paint, print, printJson, useColour } from '../output.js';
import { describeRun } from '../run-view.js';
import { clientFrom, UsageError, type GlobalOptions } from '../settings.js';

function workflowFile(file: string): WorkflowDef {
  const doc = readDocument(file);
  if (
    typeof doc !== 'object' ||
    doc === null ||
    Array.isArray(doc) ||
    !Array.isArray((doc as { tasks?: unknown }).tasks)
  ) {
    throw new UsageError(`${file}: expected one workflow definition (an object with tasks)`);
  }
  return doc as WorkflowDef;
}

// The server checks each status against the kinds of mock it takes and names a wrong one.
type Mocks = Record<string, TaskMock[]>;

/** mocks.json: `{ref: {status, output}}` or `{ref: [{status, output}, …]}` (one per attempt). */
function mocksFile(file: string | undefined): Mocks {
  if (file === undefined) return {};
  const doc = readDocument(file);
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
    throw new UsageError(`${file}: expected an object of task ref → mocked result`);
  const out: Mocks = {};
  for (const [ref, value] of Object.entries(doc as Record<string, unknown>)) {
    const list = Array.isArray(value) ? (value as unknown[]) : [value];
    out[ref] = list.map((m, i) => {
      if (typeof m !== 'object' || m === null || typeof (m as { status?: unknown }).status !== 'string') {
        throw new UsageError(
          `${file}: ${ref}[${i}] needs a status (COMPLETED, FAILED, …) and an optional output`,
        );
      }
      return m;
    });
  }
  return out;
}

export function checkCommands(program: Command): void {
  program
    .command('validate')
    .description("run the server's registration checks on a workflow definition without storing it")
    .argument('<file>', 'workflow definition (JSON or YAML)')
    .action(async (file: string, _opts: unknown, cmd: Command) => {
      const globals = cmd.optsWithGlobals<GlobalOptions>();
      const def = workflowFile(file);
      await clientFrom(globals).validateWorkflowDef(def);
      if (globals.json) printJson({ valid: true, name: def.name });
      else
        print(
          `${paint('valid', 'green')}: ${def.name}${def.version !== undefined ? ` v${def.version}` : ''}`,
        );
    });

  program
    .command('test')
    .description('run a definition in memory with mocked task results (nothing stored, nothing called)')
    .argument('<file>', 'workflow definition (JSON or YAML)')
    .option('-m, --mocks <file>', 'task ref → {status, output} or a list of them, one per attempt')
    .option('-i, --input <json|@file>', "the run's input")
    .action(async (file: string, opts: { mocks?: string; input?: string }, cmd: Command) => {
      const globals = cmd.optsWithGlobals<GlobalOptions>();
      const run = await clientFrom(globals).testWorkflow({
        workflowDef: workflowFile(file),
        input: readInput(opts.input) as JsonObject,
        taskRefToMockOutput: mocksFile(opts.mocks),
      });
      if (globals.json) printJson(run);
      else print(describeRun(run, Date.now(), useColour()));
      process.exitCode = exitCodeFor(run.status);
    });
}
