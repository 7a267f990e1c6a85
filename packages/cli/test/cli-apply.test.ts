import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';

import { BatonClient } from '@baton/sdk';

import { enabledStores, runCli, startBatonOn, type BatonProcess } from './helpers/cli.js';

// SQLite and PostgreSQL both: search, schedules and handlers are store queries of their own.
for (const store of enabledStores()) {
  describe(`baton apply (real CLI, real server on ${store})`, () => {
    let baton: BatonProcess;
    let dir: string;
    let env: Record<string, string>;

    before(async () => {
      baton = await startBatonOn(store);
      env = { BATON_URL: baton.url };
      dir = mkdtempSync(path.join(tmpdir(), 'baton-apply-'));
      mkdirSync(path.join(dir, 'flows'));
      writeFileSync(
        path.join(dir, 'tasks.yaml'),
        [
          '- name: charge',
          '  retryCount: 1',
          '  responseTimeoutSeconds: 30',
          '- name: ship',
          '  responseTimeoutSeconds: 60',
          '',
        ].join('\n'),
      );
      writeFileSync(path.join(dir, 'flows', 'order.json'), JSON.stringify(order('${workflow.input.id}')));
      writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'not-a-definition' }));
    });
    after(async () => {
      rmSync(dir, { recursive: true, force: true });
      await baton?.stop();
    });

    function order(idExpression: string) {
      return {
        name: 'order',
        version: 1,
        tasks: [
          {
            name: 'charge',
            taskReferenceName: 'charge',
            type: 'SIMPLE',
            inputParameters: { id: idExpression },
          },
          { name: 'ship', taskReferenceName: 'ship', type: 'SIMPLE', inputParameters: {} },
        ],
      };
    }

    it('registers task definitions then workflows, and says so', async () => {
      const r = await runCli(['apply', '-f', dir], { env });
      assert.equal(r.code, 0, r.stderr);
      const lines = r.stdout.trim().split('\n');
      assert.match(lines[0]!, /^\+ created\s+task definition charge/);
      assert.match(lines[1]!, /^\+ created\s+task definition ship/);
      assert.match(lines[2]!, /^\+ created\s+workflow order v1/);
      assert.match(lines[3]!, /applied: 3 created, 0 updated, 0 unchanged/);
      const client = new BatonClient({ baseUrl: baton.url });
      assert.equal((await client.getTaskDef('charge'))?.retryCount, 1);
      assert.equal((await client.getWorkflowDef('order'))?.tasks.length, 2);
    });

    it('is idempotent: a second apply changes nothing', async () => {
      const r = await runCli(['apply', '-f', dir, '--json'], { env });
      assert.equal(r.code, 0, r.stderr);
      const applied = JSON.parse(r.stdout) as Array<{ kind: string; name: string; change: string }>;
      assert.deepEqual(
        applied.map((a) => [a.kind, a.name, a.change]),
        [
          ['taskdef', 'charge', 'unchanged'],
          ['taskdef', 'ship', 'unchanged'],
          ['workflow', 'order', 'unchanged'],
        ],
      );
    });

    it('shows what an edit updates, and --dry-run changes nothing', async () => {
      writeFileSync(
        path.join(dir, 'flows', 'order.json'),
        JSON.stringify(order('${workflow.input.orderId}')),
      );
      const dry = await runCli(['apply', '-f', dir, '--dry-run'], { env });
      assert.match(dry.stdout, /~ updated\s+workflow order v1/);
      assert.match(dry.stdout, /would apply: 0 created, 1 updated, 2 unchanged/);
      const client = new BatonClient({ baseUrl: baton.url });
      assert.equal(
        (await client.getWorkflowDef('order'))?.tasks[0]?.inputParameters?.id,
        '${workflow.input.id}',
      );

      const r = await runCli(['apply', '-f', dir], { env });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /applied: 0 created, 1 updated, 2 unchanged/);
      assert.equal(
        (await client.getWorkflowDef('order'))?.tasks[0]?.inputParameters?.id,
        '${workflow.input.orderId}',
      );
    });

    it("shows the server's message when it refuses a definition, and exits 1", async () => {
      const bad = mkdtempSync(path.join(tmpdir(), 'baton-apply-bad-'));
      try {
        writeFileSync(
          path.join(bad, 'bad.json'),
          JSON.stringify({
            name: 'bad',
            version: 1,
            tasks: [{ name: 'x', taskReferenceName: 'a', type: 'SWITCH' }],
          }),
        );
        const r = await runCli(['apply', '-f', bad], { env });
        assert.equal(r.code, 1);
        assert.match(r.stderr, /the server refused PUT .*\/api\/metadata\/workflow \(HTTP 400\)/);
      } finally {
        rmSync(bad, { recursive: true, force: true });
      }
    });

    it('applies a workflow and the sub-workflow it names together, and refuses duplicates', async () => {
      const nested = mkdtempSync(path.join(tmpdir(), 'baton-apply-nested-'));
      try {
        // parent.json sorts before child.json: both go in one PUT, so the order does not matter.
        writeFileSync(
          path.join(nested, 'a-parent.json'),
          JSON.stringify({
            name: 'parent',
            tasks: [
              {
                name: 'child',
                taskReferenceName: 'c',
                type: 'SUB_WORKFLOW',
                subWorkflowParam: { name: 'child' },
              },
            ],
          }),
        );
        writeFileSync(
          path.join(nested, 'b-child.yaml'),
          [
            'name: child',
            'tasks:',
            '  - name: charge',
            '    taskReferenceName: charge',
            '    type: SIMPLE',
            '',
          ].join('\n'),
        );
        const r = await runCli(['apply', '-f', nested], { env });
        assert.equal(r.code, 0, r.stderr);
        assert.match(r.stdout, /applied: 2 created, 0 updated, 0 unchanged/);

        writeFileSync(path.join(nested, 'c-again.json'), JSON.stringify({ name: 'child', tasks: [] }));
        const dup = await runCli(['apply', '-f', nested], { env });
        assert.equal(dup.code, 2);
        assert.match(
          dup.stderr,
          /workflow child is defined twice: in .*b-child\.yaml and in .*c-again\.json/,
        );
      } finally {
        rmSync(nested, { recursive: true, force: true });
      }
    });

    it('applies schedules and event handlers after the workflows they start, idempotently', async () => {
      const ops = mkdtempSync(path.join(tmpdir(), 'baton-apply-ops-'));
      // The schedule and the handler sort before the workflow they name: apply orders by kind.
      const schedule = {
        name: 'nightly-report',
        cronExpression: '0 0 3 1 1 *',
        zoneId: 'Europe/Berlin',
        startWorkflowRequest: { name: 'report', input: { scope: 'all' } },
      };
      const handler = {
        name: 'on-order',
        event: 'baton:orders',
        actions: [{ action: 'start_workflow', start_workflow: { name: 'report', input: { id: '${id}' } } }],
        active: true,
      };
      const report = {
        name: 'report',
        tasks: [{ name: 'charge', taskReferenceName: 'charge', type: 'SIMPLE' }],
      };
      try {
        writeFileSync(path.join(ops, 'a-schedule.json'), JSON.stringify(schedule));
        writeFileSync(
          path.join(ops, 'b-handler.yaml'),
          [
            'name: on-order',
            'event: baton:orders',
            'actions:',
            '  - action: start_workflow',
            '    start_workflow:',
            '      name: report',
            "      input: { id: '${id}' }",
            'active: true',
            '',
          ].join('\n'),
        );
        writeFileSync(path.join(ops, 'c-report.json'), JSON.stringify(report));

        const r = await runCli(['apply', '-f', ops], { env });
        assert.equal(r.code, 0, r.stderr);
        const lines = r.stdout.trim().split('\n');
        assert.match(lines[0]!, /^\+ created\s+workflow report v1/);
        assert.match(lines[1]!, /^\+ created\s+schedule nightly-report\s+.*a-schedule\.json/);
        assert.match(lines[2]!, /^\+ created\s+event handler on-order\s+.*b-handler\.yaml/);
        assert.match(lines[3]!, /applied: 3 created, 0 updated, 0 unchanged/);
        const client = new BatonClient({ baseUrl: baton.url });
        const stored = await client.getSchedule('nightly-report');
        assert.equal(stored?.zoneId, 'Europe/Berlin');
        assert.deepEqual(stored?.startWorkflowRequest.input, { scope: 'all' });
        assert.deepEqual(
          (await client.listEventHandlers()).find((h) => h.name === 'on-order')?.actions,
          handler.actions,
        );

        const again = await runCli(['apply', '-f', ops, '--json'], { env });
        assert.equal(again.code, 0, again.stderr);
        assert.deepEqual(
          (JSON.parse(again.stdout) as Array<{ kind: string; name: string; change: string }>).map((a) => [
            a.kind,
            a.name,
            a.change,
          ]),
          [
            ['workflow', 'report', 'unchanged'],
            ['schedule', 'nightly-report', 'unchanged'],
            ['eventHandler', 'on-order', 'unchanged'],
          ],
        );

        // An operator pauses the schedule; applying an edit that does not say `paused` keeps it paused.
        const pause = await fetch(`${baton.url}/api/schedule/nightly-report/pause?reason=maintenance`, {
          method: 'PUT',
        });
        assert.equal(pause.status, 200);
        writeFileSync(
          path.join(ops, 'a-schedule.json'),
          JSON.stringify({ ...schedule, cronExpression: '@weekly' }),
        );
        writeFileSync(path.join(ops, 'b-handler.yaml'), JSON.stringify({ ...handler, active: false }));
        const edit = await runCli(['apply', '-f', ops], { env });
        assert.equal(edit.code, 0, edit.stderr);
        assert.match(edit.stdout, /~ updated\s+schedule nightly-report/);
        assert.match(edit.stdout, /~ updated\s+event handler on-order/);
        assert.match(edit.stdout, /applied: 0 created, 2 updated, 1 unchanged/);
        const edited = await client.getSchedule('nightly-report');
        assert.equal(edited?.cronExpression, '@weekly');
        assert.equal(edited?.paused, true, 'still paused');
        assert.equal(edited?.pausedReason, 'maintenance');
        assert.equal((await client.listEventHandlers()).find((h) => h.name === 'on-order')?.active, false);
      } finally {
        rmSync(ops, { recursive: true, force: true });
      }
    });

    it("shows the server's message when it refuses a schedule, and exits 1", async () => {
      const bad = mkdtempSync(path.join(tmpdir(), 'baton-apply-bad-'));
      try {
        writeFileSync(
          path.join(bad, 'bad.json'),
          JSON.stringify({
            name: 'never',
            cronExpression: 'not cron',
            startWorkflowRequest: { name: 'order' },
          }),
        );
        const r = await runCli(['apply', '-f', bad], { env });
        assert.equal(r.code, 1);
        assert.match(
          r.stderr,
          /the server refused POST .*\/api\/schedule \(HTTP 400\): invalid cron expression 'not cron'/,
        );
        assert.equal(await new BatonClient({ baseUrl: baton.url }).getSchedule('never'), undefined);
      } finally {
        rmSync(bad, { recursive: true, force: true });
      }
    });

    it('names a file that does not parse, and exits 2', async () => {
      const bad = mkdtempSync(path.join(tmpdir(), 'baton-apply-bad-'));
      try {
        writeFileSync(path.join(bad, 'broken.yaml'), 'name: [unclosed');
        const r = await runCli(['apply', '-f', bad], { env });
        assert.equal(r.code, 2);
        assert.match(r.stderr, /broken\.yaml is not valid YAML/);
      } finally {
        rmSync(bad, { recursive: true, force: true });
      }
    });
  });
}
