import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';

import { type BatonProcess, http, httpOk, startBaton } from '../helpers/baton-process.js';

/**
 * What a node loads before it needs it. The SDKs of features a deployment may never use (MCP,
 * the LLM providers, the OpenAPI parser, the AMQP and NATS clients, OpenTelemetry's SDK and
 * exporter, S3) and the script threads cost tens of megabytes each; a real server process, with a
 * module hook that writes down every module it loads, must load none of them and make no script
 * thread to start and run a plain workflow, and must make a script thread once a script runs.
 */

const LOADED_ONLY_WHEN_USED = [
  '/node_modules/@modelcontextprotocol/',
  '/node_modules/openai/',
  '/node_modules/@anthropic-ai/',
  '/node_modules/@apidevtools/swagger-parser/',
  '/node_modules/amqplib/',
  '/node_modules/nats/',
  '/node_modules/@opentelemetry/sdk-trace',
  '/node_modules/@opentelemetry/exporter-trace-otlp-proto/',
  '/node_modules/@aws-sdk/',
];

/** The node's script threads, from its `baton_script_threads` gauge. */
async function scriptThreads(node: BatonProcess): Promise<number> {
  const metrics = await httpOk('GET', `${node.url}/metrics`);
  const line = /^baton_script_threads (\d+)$/m.exec(metrics.text);
  assert.ok(line, 'GET /metrics has baton_script_threads');
  return Number(line[1]);
}

/** A loader hook (`--import`) that appends each module's URL to the file named by its env. */
function moduleLog(dir: string): { nodeOptions: string; read: () => string[] } {
  const log = path.join(dir, 'modules.txt');
  writeFileSync(log, '');
  const hooks = path.join(dir, 'hooks.mjs');
  writeFileSync(
    hooks,
    `import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  appendFileSync(${JSON.stringify(log)}, url + '\\n');
  return next(url, context);
}
`,
  );
  const register = path.join(dir, 'register.mjs');
  writeFileSync(
    register,
    `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`,
  );
  return {
    nodeOptions: `--import=${pathToFileURL(register).href}`,
    read: () => readFileSync(log, 'utf8').split('\n').filter(Boolean),
  };
}

function loadedOf(modules: string[], prefix: string): string[] {
  return modules.filter((url) => url.includes(prefix));
}

describe('what a node loads before it needs it', { timeout: 120_000 }, () => {
  let node: BatonProcess;
  let dir: string;
  let modules: ReturnType<typeof moduleLog>;

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'baton-footprint-'));
    modules = moduleLog(dir);
    node = await startBaton({ env: { NODE_OPTIONS: modules.nodeOptions } });
  });

  after(async () => {
    await node.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('starts and runs a plain workflow without loading any SDK of an unused feature or a script thread', async () => {
    const run = await http(
      'POST',
      `${node.url}/api/workflow/test`,
      {
        workflowDef: {
          name: 'plain',
          version: 1,
          schemaVersion: 2,
          ownerEmail: 'test@example.com',
          tasks: [
            { name: 'set', taskReferenceName: 'set', type: 'SET_VARIABLE', inputParameters: { x: 1 } },
            {
              name: 'pick',
              taskReferenceName: 'pick',
              type: 'SWITCH',
              evaluatorType: 'value-param',
              expression: 'which',
              inputParameters: { which: 'a' },
              decisionCases: {
                a: [
                  {
                    name: 'set',
                    taskReferenceName: 'chosen',
                    type: 'SET_VARIABLE',
                    inputParameters: { y: 2 },
                  },
                ],
              },
            },
          ],
        },
      },
      { timeoutMs: 60_000 },
    );
    assert.equal(run.status, 200, run.text.slice(0, 500));
    assert.equal((run.body as { status: string }).status, 'COMPLETED', run.text.slice(0, 500));
    assert.equal(await scriptThreads(node), 0);
    const loaded = modules.read();
    assert.ok(
      loaded.some((url) => url.endsWith('/dist/src/server.js')),
      'the hook saw the server load',
    );
    for (const prefix of LOADED_ONLY_WHEN_USED)
      assert.deepEqual(loadedOf(loaded, prefix).slice(0, 3), [], `${prefix} was loaded before it was needed`);
  });

  it('makes a script thread once a script runs', async () => {
    const workflowDef = {
      name: 'scripted',
      version: 1,
      schemaVersion: 2,
      ownerEmail: 'test@example.com',
      tasks: [
        {
          name: 'add',
          taskReferenceName: 'add',
          type: 'INLINE',
          inputParameters: { evaluatorType: 'javascript', expression: '1 + 1' },
        },
      ],
    };
    const run = await httpOk('POST', `${node.url}/api/workflow/test`, { workflowDef });
    assert.equal((run.body as { status: string }).status, 'COMPLETED', run.text.slice(0, 500));
    // A script thread's own loads are not seen by the hook (a worker thread has its own loader):
    // the node's gauge says the thread is there.
    assert.equal(await scriptThreads(node), 1);
  });
});
