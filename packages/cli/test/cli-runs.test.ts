import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';

import { BatonClient, TerminalError, WorkerPool, builders, defineWorker } from '@baton/sdk';

import { enabledStores, freePort, runCli, startBatonOn, waitFor, type BatonProcess } from './helpers/cli.js';

const { simpleTask, taskDef, workflow, waitTask } = builders;

// SQLite and PostgreSQL both: search, schedules and handlers are store queries of their own.
for (const store of enabledStores()) {
  describe(`baton start, runs, show and run control (real CLI, real server on ${store})`, () => {
    let baton: BatonProcess;
    let client: BatonClient;
    let pool: WorkerPool;
    let env: Record<string, string>;
    let dir: string;

    before(async () => {
      baton = await startBatonOn(store);
      env = { BATON_URL: baton.url };
      client = new BatonClient({ baseUrl: baton.url });
      dir = mkdtempSync(path.join(tmpdir(), 'baton-cli-'));
      await client.registerTaskDefs([taskDef('double', { retryCount: 0 })]);
      await client.putWorkflowDefs([
        workflow('doubler', [simpleTask('double', 'double', { n: '${workflow.input.n}' })], {
          outputParameters: { result: '${double.output.result}' },
        }),
        workflow('gate', [waitTask('hold'), simpleTask('double', 'double', { n: 1 })]),
      ]);
      pool = new WorkerPool({
        client,
        workers: [
          defineWorker<{ n: number }, { result: number }>({
            taskType: 'double',
            handler: ({ n }) => {
              if (n < 0) throw new TerminalError(`cannot double a negative number: ${n}`);
              return { result: n * 2 };
            },
          }),
        ],
      }).start();
    });
    after(async () => {
      await pool?.stop({ graceMs: 1000 });
      rmSync(dir, { recursive: true, force: true });
      await baton?.stop();
    });

    it('start prints the run id; --json gives it as an object', async () => {
      const r = await runCli(['start', 'doubler', '--input', '{"n": 2}'], { env });
      assert.equal(r.code, 0, r.stderr);
      const id = r.stdout.trim();
      assert.match(id, /^[0-9a-f-]{36}$/);
      const j = await runCli(['start', 'doubler', '--input', '{"n": 3}', '--json'], { env });
      assert.match((JSON.parse(j.stdout) as { workflowId: string }).workflowId, /^[0-9a-f-]{36}$/);
    });

    it('start --wait follows the run and ends with its output and exit code 0', async () => {
      const input = path.join(dir, 'in.json');
      writeFileSync(input, JSON.stringify({ n: 21 }));
      const r = await runCli(['start', 'doubler', '--input', `@${input}`, '--wait'], { env });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /double COMPLETED/);
      assert.match(r.stdout, /COMPLETED output: \{"result":42\}/);
      const j = await runCli(['start', 'doubler', '--input', '{"n": 5}', '--wait', '--json'], { env });
      assert.equal(j.code, 0);
      const parsed = JSON.parse(j.stdout) as { status: string; output: unknown };
      assert.deepEqual([parsed.status, parsed.output], ['COMPLETED', { result: 10 }]);
    });

    it('start --wait of a failing run says why and exits 3', async () => {
      const r = await runCli(['start', 'doubler', '--input', '{"n": -1}', '--wait'], { env });
      assert.equal(r.code, 3, r.stdout + r.stderr);
      assert.match(r.stdout, /why it failed: .*cannot double a negative number: -1/);
    });

    it('show draws the tree with states and why the run failed', async () => {
      const id = await client.startWorkflow('doubler', { input: { n: -7 } });
      await waitFor(async () => ((await client.getWorkflow(id)).status === 'FAILED' ? true : undefined), {
        timeoutMs: 30_000,
        what: 'run fails',
      });
      const r = await runCli(['show', id], { env });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, new RegExp(`doubler v1  ${id}  FAILED`));
      assert.match(r.stdout, /why it failed: .*cannot double a negative number: -7/);
      assert.match(
        r.stdout,
        /✖ double SIMPLE FAILED_WITH_TERMINAL_ERROR .* — cannot double a negative number: -7/,
      );
      const j = await runCli(['show', id, '--json'], { env });
      assert.equal((JSON.parse(j.stdout) as { workflowId: string }).workflowId, id);
    });

    it('show of a waiting run says what it waits for; pause, resume and terminate change it', async () => {
      const id = await client.startWorkflow('gate');
      const shown = await runCli(['show', id], { env });
      assert.match(shown.stdout, /RUNNING/);
      assert.match(shown.stdout, /waiting: hold: /);
      assert.match(shown.stdout, /● hold WAIT IN_PROGRESS .* — /);
      assert.match(shown.stdout, /○ double SIMPLE/);

      assert.match((await runCli(['pause', id], { env })).stdout, new RegExp(`${id} PAUSED`));
      assert.match((await runCli(['resume', id], { env })).stdout, new RegExp(`${id} RUNNING`));
      const t = await runCli(['terminate', id, '--reason', 'enough'], { env });
      assert.match(t.stdout, new RegExp(`${id} TERMINATED`));
      const again = await runCli(['pause', id], { env });
      assert.equal(again.code, 1);
      assert.match(again.stderr, /the server refused PUT .* \(HTTP 409\)/);
    });

    it('retry, restart and rerun print the new run, linked to the old one', async () => {
      const failed = await client.startWorkflow('doubler', { input: { n: -2 } });
      await waitFor(async () => ((await client.getWorkflow(failed)).status === 'FAILED' ? true : undefined), {
        timeoutMs: 30_000,
        what: 'run fails',
      });
      for (const [verb, link] of [
        ['retry', 'retry_of'],
        ['restart', 'restart_of'],
        ['rerun', 'rerun_of'],
      ] as const) {
        const r = await runCli([verb, failed], { env });
        assert.equal(r.code, 0, r.stderr);
        const run = await client.getWorkflow(r.stdout.trim());
        assert.equal(run.links[link], failed);
      }
      const rerun = await runCli(
        ['rerun', failed, '--from-task', 'double', '--task-input', '{"n": 4}', '--json'],
        { env },
      );
      const newId = (JSON.parse(rerun.stdout) as { workflowId: string }).workflowId;
      await waitFor(
        async () => ((await client.getWorkflow(newId)).status === 'COMPLETED' ? true : undefined),
        {
          timeoutMs: 30_000,
          what: 'rerun completes',
        },
      );
      assert.deepEqual((await client.getWorkflow(newId)).output, { result: 8 });
    });

    it('runs lists runs, filtered by status, name and since', async () => {
      const all = await runCli(['runs', '--name', 'doubler', '--json'], { env });
      const found = JSON.parse(all.stdout) as {
        totalHits: number;
        results: Array<{ status: string; workflowType: string }>;
      };
      assert.ok(found.totalHits >= 5);
      assert.ok(found.results.every((r) => r.workflowType === 'doubler'));
      const failed = await runCli(['runs', '--status', 'FAILED', '--since', '1h'], { env });
      assert.equal(failed.code, 0, failed.stderr);
      const rows = failed.stdout.trim().split('\n').slice(1);
      assert.ok(rows.length >= 2);
      assert.ok(
        rows.every((row) => /\bFAILED\b/.test(row)),
        failed.stdout,
      );
      const future = await runCli(['runs', '--since', new Date(Date.now() + 3_600_000).toISOString()], {
        env,
      });
      assert.equal(future.stdout.trim(), 'no runs');
      const badStatus = await runCli(['runs', '--status', 'DONE'], { env });
      assert.equal(badStatus.code, 2);
      assert.match(badStatus.stderr, /Allowed choices are RUNNING/);
      const badSince = await runCli(['runs', '--since', 'yesterday-ish'], { env });
      assert.equal(badSince.code, 2);
      assert.match(badSince.stderr, /--since must be like 30m/);
    });

    it('queues shows each queue with its counts and whether a worker polls it', async () => {
      const r = await runCli(['queues'], { env });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /^QUEUE\s+WAITING\s+SCHEDULED\s+IN FLIGHT\s+DEAD\s+WORKERS\s+LAST POLL/);
      assert.match(r.stdout, /\ndouble\s+0\s+0\s+\d+\s+\d+\s+1\s+[\d.]+ (ms|s) ago/);
      const j = JSON.parse((await runCli(['queues', '--json'], { env })).stdout) as Record<
        string,
        { activeWorkers: number }
      >;
      assert.equal(j.double?.activeWorkers, 1);
    });

    it('test runs a definition with mocks; validate checks one', async () => {
      const def = path.join(dir, 'def.json');
      writeFileSync(
        def,
        JSON.stringify(
          workflow('mocked', [simpleTask('a', 'double'), simpleTask('b', 'double')], {
            outputParameters: { b: '${b.output.v}' },
          }),
        ),
      );
      const mocks = path.join(dir, 'mocks.json');
      writeFileSync(
        mocks,
        JSON.stringify({
          a: { status: 'COMPLETED', output: { v: 1 } },
          b: [{ status: 'FAILED' }, { status: 'COMPLETED', output: { v: 2 } }],
        }),
      );
      const r = await runCli(['test', def, '--mocks', mocks], { env });
      assert.equal(r.code, 3, 'b fails and double has retryCount 0');
      assert.match(r.stdout, /mocked v1 .* FAILED/);

      writeFileSync(
        mocks,
        JSON.stringify({
          a: { status: 'COMPLETED', output: { v: 1 } },
          b: { status: 'COMPLETED', output: { v: 2 } },
        }),
      );
      const ok = await runCli(['test', def, '--mocks', mocks, '--json'], { env });
      assert.equal(ok.code, 0);
      assert.deepEqual((JSON.parse(ok.stdout) as { output: unknown }).output, { b: 2 });

      assert.match((await runCli(['validate', def], { env })).stdout, /valid: mocked v1/);
      const bad = path.join(dir, 'bad.json');
      writeFileSync(
        bad,
        JSON.stringify({ name: 'bad', tasks: [{ name: 'x', taskReferenceName: 'x', type: 'SWITCH' }] }),
      );
      const v = await runCli(['validate', bad], { env });
      assert.equal(v.code, 1);
      assert.match(v.stderr, /HTTP 400/);
      assert.match(v.stderr, /\n {2}- /, 'lists the validation errors');
    });

    it('show and test draw forks, switch cases and loop iterations as a tree', async () => {
      const def = path.join(dir, 'shapes.json');
      const simple = (ref: string) => ({ name: ref, taskReferenceName: ref, type: 'SIMPLE' });
      writeFileSync(
        def,
        JSON.stringify({
          name: 'shapes',
          version: 1,
          tasks: [
            {
              name: 'fork',
              taskReferenceName: 'fork',
              type: 'FORK_JOIN',
              forkTasks: [[simple('a')], [simple('b'), simple('b2')]],
            },
            { name: 'join', taskReferenceName: 'join', type: 'JOIN', joinOn: ['a', 'b2'] },
            {
              name: 'sw',
              taskReferenceName: 'sw',
              type: 'SWITCH',
              evaluatorType: 'value-param',
              expression: 'k',
              inputParameters: { k: '${workflow.input.k}' },
              decisionCases: { x: [simple('c')] },
              defaultCase: [simple('d')],
            },
            {
              name: 'loop',
              taskReferenceName: 'loop',
              type: 'DO_WHILE',
              loopCondition: "if ($.loop['iteration'] < 2) { true; } else { false; }",
              loopOver: [simple('e')],
            },
          ],
        }),
      );
      const mocks = path.join(dir, 'shape-mocks.json');
      writeFileSync(
        mocks,
        JSON.stringify({
          a: { status: 'COMPLETED' },
          b: { status: 'COMPLETED' },
          b2: [{ status: 'FAILED' }, { status: 'COMPLETED' }],
          c: { status: 'COMPLETED' },
          e: [{ status: 'COMPLETED' }, { status: 'COMPLETED' }],
        }),
      );
      const r = await runCli(['test', def, '--mocks', mocks, '--input', '{"k": "x"}'], { env });
      assert.equal(r.code, 0, r.stdout + r.stderr);
      const tree = r.stdout
        .split('\n')
        .filter((l) => /^\s*[✔✖●◌○⊘┊]/.test(l))
        .map((l) => l.replace(/ (\d+(\.\d)? (ms|s)|\d+ min \d+ s|\d+ h \d+ min)$/, ''));
      assert.deepEqual(tree, [
        '✔ fork FORK_JOIN COMPLETED',
        '  ┊ branch 1',
        '    ✔ a SIMPLE COMPLETED',
        '  ┊ branch 2',
        '    ✔ b SIMPLE COMPLETED',
        '    ✔ b2 SIMPLE COMPLETED ×2 attempts',
        '✔ join JOIN COMPLETED',
        '✔ sw SWITCH COMPLETED',
        '  ┊ case x',
        '    ✔ c SIMPLE COMPLETED',
        '✔ loop DO_WHILE COMPLETED',
        '  ✔ e (iteration 2) SIMPLE COMPLETED ×2 iterations',
      ]);
    });

    it('connection refused names the URL; a 404 shows the server message', async () => {
      const port = await freePort();
      const r = await runCli(['runs', '--server', `http://127.0.0.1:${port}`]);
      assert.equal(r.code, 1);
      assert.match(r.stderr, new RegExp(`cannot reach Baton at http://127.0.0.1:${port}: ECONNREFUSED`));
      const fromEnv = await runCli(['queues'], { env: { BATON_URL: `http://127.0.0.1:${port}` } });
      assert.match(fromEnv.stderr, new RegExp(`http://127.0.0.1:${port}`));
      const missing = await runCli(['show', 'no-such-run'], { env });
      assert.equal(missing.code, 1);
      assert.match(missing.stderr, /HTTP 404\): .*no-such-run/);
      const badInput = await runCli(['start', 'doubler', '--input', '{nope'], { env });
      assert.equal(badInput.code, 2);
      assert.match(badInput.stderr, /--input is not valid JSON/);
    });
  });
}
