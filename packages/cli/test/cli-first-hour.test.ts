import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';

import { BatonClient } from '@baton/sdk';

import { duration } from '../src/output.js';
import { countsOf, type TreeNode } from '../src/run-tree.js';
import { freePort, runCli, startBaton, type BatonProcess } from './helpers/cli.js';

/**
 * What a new user trips over in the first hour with the CLI, against a real server: a Conductor
 * style `--server …/api`, errors as JSON with `--json`, where a bad definition file is wrong,
 * a `--wait --timeout` that ran out, and a test run whose mocks ran out.
 */
describe('the CLI in the first hour (real CLI, real server)', () => {
  let baton: BatonProcess;
  let dir: string;

  before(async () => {
    baton = await startBaton();
    dir = mkdtempSync(path.join(tmpdir(), 'baton-first-hour-'));
    const client = new BatonClient({ baseUrl: baton.url });
    await client.registerTaskDefs([{ name: 'fh_task', responseTimeoutSeconds: 60 }]);
    await client.putWorkflowDefs([
      {
        name: 'fh_hello',
        version: 1,
        tasks: [{ name: 'fh_task', taskReferenceName: 'only', type: 'SIMPLE' }],
      },
    ]);
  });
  after(async () => {
    rmSync(dir, { recursive: true, force: true });
    await baton?.stop();
  });

  it('--server http://host:port/api (as Conductor clients take it) and BATON_URL with /api both work', async () => {
    const flag = await runCli(['runs', '--server', `${baton.url}/api`]);
    assert.equal(flag.code, 0, flag.stderr);
    const env = await runCli(['runs'], { env: { BATON_URL: `${baton.url}/api/` } });
    assert.equal(env.code, 0, env.stderr);
  });

  it('an address with a path after the port says to drop it, not a JSON parse error or a bare 404', async () => {
    // GET under a path reaches the web UI's pages (HTML); other methods find no route.
    const page = await runCli(['queues', '-s', `${baton.url}/baton`]);
    assert.equal(page.code, 1, page.stderr);
    assert.doesNotMatch(page.stderr, /Unexpected token|not valid JSON/);
    assert.match(page.stderr, /not Baton's API|has a path after the port/);
    assert.match(page.stderr, /the server from --server/);

    const route = await runCli(['start', 'fh_hello', '-s', `${baton.url}/baton`]);
    assert.equal(route.code, 1, route.stderr);
    assert.match(route.stderr, new RegExp(`has a path after the port: try ${baton.url}\\n`));

    const json = await runCli(['runs', '--json'], { env: { BATON_URL: `${baton.url}/ui` } });
    assert.equal(json.code, 1);
    const body = JSON.parse(json.stderr) as { error: { message: string; server: string } };
    assert.equal(body.error.server, `${baton.url}/ui`);
    assert.match(body.error.message, /not Baton's API|has a path after the port/);
  });

  it("a refusal names the URL asked, the run's id in it (not the path template)", async () => {
    const r = await runCli(['pause', 'fh-no-such-run', '-s', baton.url]);
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      new RegExp(`refused PUT ${baton.url}/api/workflow/fh-no-such-run/pause \\(HTTP 404\\)`),
    );
    assert.doesNotMatch(r.stderr, /\{id\}/);
  });

  it('a connection error says which server was tried and where that address came from', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const fromEnv = await runCli(['runs'], { env: { BATON_URL: url } });
    assert.equal(fromEnv.code, 1);
    assert.match(fromEnv.stderr, new RegExp(`cannot reach Baton at ${url}.*the server from BATON_URL`));
    const fromFlag = await runCli(['queues', '-s', url]);
    assert.match(fromFlag.stderr, /the server from --server/);
  });

  it('--json: errors are one JSON object on stderr, the exit code unchanged', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const unreachable = await runCli(['runs', '--json'], { env: { BATON_URL: url } });
    assert.equal(unreachable.code, 1);
    assert.equal(unreachable.stdout, '');
    const body = JSON.parse(unreachable.stderr) as {
      error: { message: string; exitCode: number; server: string };
    };
    assert.equal(body.error.exitCode, 1);
    assert.equal(body.error.server, url);

    const usage = await runCli(['runs', '--limit', '0', '--json']);
    assert.equal(usage.code, 2);
    assert.match((JSON.parse(usage.stderr) as { error: { message: string } }).error.message, /--limit/);

    const unknown = await runCli(['runs', '--bogus', '--json']);
    assert.equal(unknown.code, 2);
    assert.equal((JSON.parse(unknown.stderr) as { error: { exitCode: number } }).error.exitCode, 2);

    const refused = await runCli(['start', 'fh_missing', '--json', '-s', baton.url]);
    assert.equal(refused.code, 1);
    const answer = JSON.parse(refused.stderr) as { error: { status: number } };
    assert.equal(answer.error.status, 404);
  });

  it('apply -f dir/ with one bad file among several names the file, line, column and the path in it', async () => {
    const defs = path.join(dir, 'defs');
    mkdirSync(defs);
    writeFileSync(
      path.join(defs, 'a-good.json'),
      JSON.stringify({
        name: 'fh_good',
        version: 1,
        tasks: [{ name: 'fh_task', taskReferenceName: 't', type: 'SIMPLE' }],
      }),
    );
    writeFileSync(
      path.join(defs, 'b-bad.json'),
      [
        '{',
        '  "name": "fh_bad",',
        '  "version": 1,',
        '  "tasks": [',
        '    { "name": "fh_task", "taskReferenceName": "t", "type": "SIMPLE" },',
        '    { "name": "x", "taskReferenceName": "s", "type": "SWITCH" }',
        '  ]',
        '}',
      ].join('\n'),
    );
    const r = await runCli(['apply', '-f', defs], { env: { BATON_URL: baton.url } });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /b-bad\.json:6:5 tasks\[1\]\.evaluatorType: /);
    assert.doesNotMatch(r.stderr, /\[1\]\.tasks/, 'a position in the request, not the file');
  });

  it('a bad task definition among several files is named by its file alone, without the request', async () => {
    const defs = path.join(dir, 'taskdefs');
    mkdirSync(defs);
    writeFileSync(path.join(defs, 'a.json'), JSON.stringify({ name: 'fh_td_a', responseTimeoutSeconds: 60 }));
    writeFileSync(path.join(defs, 'b.json'), '{\n  "name": "fh_td_b",\n  "retryCount": -1\n}\n');
    const r = await runCli(['apply', '-f', defs], { env: { BATON_URL: baton.url } });
    assert.equal(r.code, 1);
    const lines = r.stderr.trim().split('\n');
    assert.match(lines[0] ?? '', /failed validation$/);
    assert.doesNotMatch(
      r.stderr,
      /body\[|body:/,
      'no position in the request, no complaint about the whole body',
    );
    assert.deepEqual(lines.slice(1), [`  - ${path.join(defs, 'b.json')}:3:17 retryCount: must be >= 0`]);
  });

  it('invalid JSON says the line and column', async () => {
    const file = path.join(dir, 'broken.json');
    writeFileSync(file, '{\n  "name": "t",\n  "retryCount" 2\n}\n');
    const r = await runCli(['apply', '-f', file], { env: { BATON_URL: baton.url } });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /broken\.json:3:16 is not valid JSON \(line 3, column 16\)/);
  });

  it('start --version 1 --wait --timeout 1 starts that version and says it stopped waiting (exit 6)', async () => {
    const r = await runCli(['start', 'fh_hello', '--version', '1', '--wait', '--timeout', '1'], {
      env: { BATON_URL: baton.url },
    });
    assert.equal(r.code, 6, r.stderr);
    assert.match(
      r.stdout,
      /stopped waiting after 1 s: the run is still RUNNING \(baton show [0-9a-f-]+\); exit code 6/,
    );
    assert.doesNotMatch(r.stdout, /^0\.1\.0$/m);
  });

  it('baton test with too few mocks for a loop body names the iteration without one and ends FAILED (exit 3)', async () => {
    const flow = path.join(dir, 'loop.json');
    writeFileSync(
      flow,
      JSON.stringify({
        name: 'fh_loop',
        version: 1,
        tasks: [
          {
            name: 'loop',
            taskReferenceName: 'loop',
            type: 'DO_WHILE',
            loopCondition: '$.loop.iteration < 3',
            loopOver: [{ name: 'fh_task', taskReferenceName: 'body', type: 'SIMPLE' }],
          },
        ],
      }),
    );
    const mocks = path.join(dir, 'mocks.json');
    writeFileSync(mocks, JSON.stringify({ body: [{ status: 'COMPLETED' }, { status: 'COMPLETED' }] }));
    const r = await runCli(['test', flow, '--mocks', mocks], { env: { BATON_URL: baton.url } });
    assert.equal(r.code, 3, r.stdout + r.stderr);
    assert.match(r.stdout, /FAILED/);
    assert.match(r.stdout, /no mock left for body__3/);
    assert.match(r.stdout, /×3 iterations/);
  });
});

describe('CLI wording', () => {
  it('durations read as the web UI writes them', () => {
    assert.equal(duration(850), '850 ms');
    assert.equal(duration(4_200), '4.2 s');
    assert.equal(duration(244_000), '4 min 4 s');
    assert.equal(duration(299_700), '5 min 0 s');
    assert.equal(duration(7_380_000), '2 h 3 min');
  });

  it('×n says whether it counts attempts or loop iterations', () => {
    const task = (ref: string) => ({ referenceTaskName: ref }) as TreeNode['attempts'][number];
    const node = (refs: string[]): TreeNode => ({
      ref: 'a',
      type: 'SIMPLE',
      attempts: refs.map(task),
      children: [],
    });
    assert.equal(countsOf(node(['a']), task('a')), '');
    assert.equal(countsOf(node(['a', 'a', 'a']), task('a')), ' ×3 attempts');
    assert.equal(countsOf(node(['a__1', 'a__2', 'a__3']), task('a__3')), ' ×3 iterations');
    assert.equal(countsOf(node(['a__1', 'a__2', 'a__2']), task('a__2')), ' ×2 iterations, ×2 attempts');
  });
});
