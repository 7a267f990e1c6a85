import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, describe, it } from 'node:test';

import { appSuite, register } from '../helpers/app-suite.js';
import { call } from '../helpers/app.js';
import { storeCases } from '../helpers/stores.js';
import {
  AMQP_URL,
  NATS_URL,
  amqpDelete,
  amqpDepth,
  amqpDrain,
  amqpPublish,
  eventually,
  natsDeleteStream,
  natsPublish,
} from '../events/broker-helpers.js';

/**
 * Event handlers, the EVENT task, lifecycle events and instruction texts through the real routes,
 * with RabbitMQ and NATS JetStream for real.
 */
for (const c of storeCases()) {
  void describe(`events through HTTP (${c.name})`, () => {
    const t = appSuite(c, {
      env: { BATON_AMQP_URL: AMQP_URL, BATON_NATS_URL: NATS_URL, BATON_EVENT_REFRESH_MS: '100' },
    });
    const tag = randomUUID().slice(0, 8);
    const queues: string[] = [];
    const subjects: string[] = [];
    const queue = (name: string): string => {
      const q = `baton-test-${name}-${tag}`;
      queues.push(q);
      return q;
    };
    const subject = (name: string): string => {
      const s = `baton.test.${name}.${tag}`;
      subjects.push(s);
      return s;
    };
    after(async () => {
      for (const q of queues) await amqpDelete(q).catch(() => undefined);
      for (const s of subjects) await natsDeleteStream(s).catch(() => undefined);
    });

    const executions = async (handler: string) =>
      (await call(t.app, 'GET', `/api/event/executions?handler=${handler}`)).body as {
        totalHits: number;
        results: Array<{
          messageId: string;
          status: string;
          action: string;
          output: Record<string, unknown>;
        }>;
      };
    const run = async (id: string) =>
      (await call(t.app, 'GET', `/api/workflow/${id}`)).body as Record<string, any>;

    void it('manages handlers with Conductor checks and messages', async () => {
      const name = `h-crud-${tag}`;
      const handler = {
        name,
        event: `amqp:${queue('crud')}`,
        actions: [{ action: 'start_workflow', start_workflow: { name: 'nothing' } }],
      };
      assert.equal((await call(t.app, 'POST', '/api/event', handler)).status, 200);
      const dup = await call(t.app, 'POST', '/api/event', handler);
      assert.equal(dup.status, 409);
      assert.equal(dup.body.message, `EventHandler with name ${name} already exists!`);
      const missing = await call(t.app, 'PUT', '/api/event', { ...handler, name: `${name}-x` });
      assert.equal(missing.status, 404);
      assert.equal(missing.body.message, `EventHandler with name ${name}-x not found!`);
      const noActions = await call(t.app, 'POST', '/api/event', {
        ...handler,
        name: `${name}-y`,
        actions: [],
      });
      assert.equal(noActions.status, 400);
      assert.match(noActions.body.message, /No actions specified/);
      const badSource = await call(t.app, 'POST', '/api/event', {
        ...handler,
        name: `${name}-z`,
        event: 'sqs:q',
      });
      assert.equal(badSource.status, 400);
      assert.equal(badSource.body.validationErrors[0].path, 'body.event');
      const badCondition = await call(t.app, 'POST', '/api/event', {
        ...handler,
        name: `${name}-w`,
        condition: '$.a ===',
      });
      assert.equal(badCondition.status, 400);
      const badType = await call(t.app, 'POST', '/api/event', { ...handler, name: 5 });
      assert.equal(badType.status, 400);
      const all = (await call(t.app, 'GET', '/api/event')).body as Array<{ name: string; active: boolean }>;
      assert.equal(all.find((h) => h.name === name)?.active, false, 'inactive by default');
      const forEvent = await call(t.app, 'GET', `/api/event/${handler.event}?activeOnly=false`);
      assert.deepEqual(
        (forEvent.body as Array<{ name: string }>).map((h) => h.name),
        [name],
      );
      assert.deepEqual((await call(t.app, 'GET', `/api/event/${handler.event}`)).body, [], 'none active');
      assert.equal((await call(t.app, 'DELETE', `/api/event/${name}`)).status, 200);
      assert.equal((await call(t.app, 'DELETE', `/api/event/${name}`)).status, 404);
    });

    void it('starts a run from a RabbitMQ message and from a NATS message through active handlers', async () => {
      const wf = `ev-start-${tag}`;
      await register(t.app, [{ name: wf, tasks: [{ name: 'h', taskReferenceName: 'h', type: 'HUMAN' }] }]);
      const q = queue('start');
      const s = subject('start');
      for (const [name, event] of [
        [`h-amqp-${tag}`, `amqp:${q}`],
        [`h-nats-${tag}`, `nats:${s}`],
      ] as const) {
        const res = await call(t.app, 'POST', '/api/event', {
          name,
          event,
          active: true,
          actions: [
            {
              action: 'start_workflow',
              start_workflow: { name: wf, input: { order: '${order}' }, correlationId: '${order}' },
            },
          ],
        });
        assert.equal(res.status, 200, res.text);
      }
      await amqpPublish(q, { order: 'A-1' }, `amqp-msg-${tag}`);
      await natsPublish(s, { order: 'N-1' }, `nats-msg-${tag}`);
      for (const [name, event, order, messageId] of [
        [`h-amqp-${tag}`, `amqp:${q}`, 'A-1', `amqp-msg-${tag}`],
        [`h-nats-${tag}`, `nats:${s}`, 'N-1', `nats-msg-${tag}`],
      ] as const) {
        const page = await eventually(
          () => executions(name),
          (p) => p.totalHits === 1,
          30_000,
          `${name} execution`,
        );
        const execution = page.results[0];
        assert.equal(execution?.status, 'COMPLETED');
        assert.equal(execution?.action, 'start_workflow');
        assert.equal(execution?.messageId, messageId);
        const started = await run(String(execution?.output.workflowId));
        assert.equal(started.status, 'RUNNING');
        assert.equal(started.correlationId, order);
        assert.equal(started.event, event);
        assert.deepEqual(started.input, {
          order,
          'conductor.event.messageId': messageId,
          'conductor.event.name': event,
        });
      }
    });

    void it('recognises a re-sent message by its id: nothing new happens', async () => {
      const wf = `ev-dup-${tag}`;
      await register(t.app, [{ name: wf, tasks: [{ name: 'h', taskReferenceName: 'h', type: 'HUMAN' }] }]);
      const q = queue('dup');
      const name = `h-dup-${tag}`;
      await call(t.app, 'POST', '/api/event', {
        name,
        event: `amqp:${q}`,
        active: true,
        actions: [{ action: 'start_workflow', start_workflow: { name: wf } }],
      });
      await amqpPublish(q, { n: 1 }, `dup-${tag}`);
      await amqpPublish(q, { n: 1 }, `dup-${tag}`);
      await amqpPublish(q, { n: 2 }, `dup2-${tag}`);
      await eventually(
        () => executions(name),
        (p) => p.totalHits === 2,
        30_000,
        'two executions',
      );
      await eventually(
        () => amqpDepth(q),
        (n) => n === 0,
        30_000,
        'queue drained',
      );
      assert.equal((await executions(name)).totalHits, 2);
      const runs = await call(t.app, 'GET', `/api/workflow/search?name=${wf}&size=10`);
      assert.equal(runs.body.totalHits, 2);
    });

    void it('an inactive handler consumes nothing; activating it is picked up without a restart', async () => {
      const wf = `ev-inactive-${tag}`;
      await register(t.app, [{ name: wf, tasks: [{ name: 'h', taskReferenceName: 'h', type: 'HUMAN' }] }]);
      const q = queue('inactive');
      const name = `h-inactive-${tag}`;
      const handler = {
        name,
        event: `amqp:${q}`,
        active: false,
        actions: [{ action: 'start_workflow', start_workflow: { name: wf } }],
      };
      assert.equal((await call(t.app, 'POST', '/api/event', handler)).status, 200);
      await amqpPublish(q, { n: 1 }, `inactive-${tag}`);
      // Several refresh rounds pass: the message stays in its queue.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      assert.equal(await amqpDepth(q), 1);
      assert.equal((await executions(name)).totalHits, 0);
      assert.equal((await call(t.app, 'PUT', '/api/event', { ...handler, active: true })).status, 200);
      await eventually(
        () => executions(name),
        (p) => p.totalHits === 1,
        30_000,
        'consumed once active',
      );
      // Deactivated again: answered once this node no longer consumes; new messages wait.
      assert.equal((await call(t.app, 'PUT', '/api/event', handler)).status, 200);
      const health = await call(t.app, 'GET', '/health');
      assert.ok(!(health.body.components['broker-amqp'].consuming as string[]).includes(`amqp:${q}`));
      await amqpPublish(q, { n: 2 }, `inactive2-${tag}`);
      await new Promise((resolve) => setTimeout(resolve, 1500));
      assert.equal(await amqpDepth(q), 1);
      assert.equal((await executions(name)).totalHits, 1);
    });

    void it('the five actions work, fed by an EVENT task through the internal bus; a false condition is SKIPPED', async () => {
      const target = `ev-target-${tag}`;
      const sender = `ev-sender-${tag}`;
      const ctl = `ctl-${tag}`;
      await register(t.app, [
        {
          name: target,
          tasks: [
            { name: 'a', taskReferenceName: 'a', type: 'WAIT' },
            { name: 'b', taskReferenceName: 'b', type: 'WAIT' },
          ],
        },
        {
          name: sender,
          tasks: [
            {
              name: 'send',
              taskReferenceName: 'send',
              type: 'EVENT',
              sink: `baton:${ctl}`,
              inputParameters: { op: '${workflow.input.op}', target: '${workflow.input.target}' },
            },
          ],
        },
      ]);
      const action = (op: string, body: Record<string, unknown>) => ({
        name: `h-${op}-${tag}`,
        event: `baton:${ctl}`,
        active: true,
        condition: `$.op == '${op}'`,
        actions: [body],
      });
      const handlers = [
        action('vars', {
          action: 'update_workflow_variables',
          update_workflow_variables: {
            workflowId: '${target}',
            variables: { seen: ['x'] },
            appendArray: true,
          },
        }),
        action('complete', {
          action: 'complete_task',
          complete_task: { workflowId: '${target}', taskRefName: 'a', output: { by: 'event' } },
        }),
        action('fail', {
          action: 'fail_task',
          fail_task: { workflowId: '${target}', taskRefName: 'b', reasonForIncompletion: 'no good' },
        }),
        action('terminate', {
          action: 'terminate_workflow',
          terminate_workflow: { workflowId: '${target}', terminationReason: 'stopped by event' },
        }),
      ];
      for (const h of handlers) assert.equal((await call(t.app, 'POST', '/api/event', h)).status, 200);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const start = async (name: string, input: Record<string, unknown>) =>
        (await call(t.app, 'POST', `/api/workflow/${name}`, { input })).text;

      const one = await start(target, {});
      await start(sender, { op: 'vars', target: one });
      await eventually(
        () => run(one),
        (r) => Array.isArray(r.variables?.seen),
        30_000,
        'variables updated',
      );
      await start(sender, { op: 'complete', target: one });
      await eventually(
        () => run(one),
        (r) => r.tasks?.[0]?.status === 'COMPLETED',
        30_000,
        'a completed',
      );
      assert.deepEqual((await run(one)).tasks[0].outputData.by, 'event');
      await start(sender, { op: 'fail', target: one });
      const failed = await eventually(
        () => run(one),
        (r) => r.status === 'FAILED',
        30_000,
        'run failed by b',
      );
      assert.match(String(failed.reasonForIncompletion), /no good/);

      const two = await start(target, {});
      await start(sender, { op: 'terminate', target: two });
      const terminated = await eventually(
        () => run(two),
        (r) => r.status === 'TERMINATED',
        30_000,
        'terminated',
      );
      assert.equal(terminated.reasonForIncompletion, 'stopped by event');

      // Every message reached every handler of the queue: the ones whose condition was false are SKIPPED.
      const vars = await eventually(
        () => executions(`h-vars-${tag}`),
        (p) => p.totalHits === 4,
        30_000,
        'four executions',
      );
      assert.equal(vars.results.filter((e) => e.status === 'COMPLETED').length, 1);
      const skipped = vars.results.find((e) => e.status === 'SKIPPED');
      assert.equal(skipped?.output.condition, `$.op == 'vars'`);
      // Terminating an ended run is refused: a FAILED execution with the reason.
      await start(sender, { op: 'terminate', target: two });
      const term = await eventually(
        () => executions(`h-terminate-${tag}`),
        (p) => p.results.some((e) => e.status === 'FAILED'),
        30_000,
        'failed terminate',
      );
      assert.match(
        String(term.results.find((e) => e.status === 'FAILED')?.output.exception),
        /has ended|TERMINATED/,
      );
    });

    void it('publishes EVENT task output to RabbitMQ and NATS sinks with Conductor output fields', async () => {
      const q = queue('sink');
      const s = subject('sink');
      const wf = `ev-sink-${tag}`;
      await register(t.app, [
        {
          name: wf,
          tasks: [
            {
              name: 'toamqp',
              taskReferenceName: 'toamqp',
              type: 'EVENT',
              sink: `amqp:${q}`,
              inputParameters: { k: 1 },
            },
            {
              name: 'tonats',
              taskReferenceName: 'tonats',
              type: 'EVENT',
              sink: `nats:${s}`,
              inputParameters: { k: 2 },
            },
          ],
        },
      ]);
      const bad = await call(t.app, 'POST', '/api/metadata/workflow', {
        name: `${wf}-bad`,
        tasks: [{ name: 'x', taskReferenceName: 'x', type: 'EVENT', sink: 'kafka:t' }],
      });
      assert.equal(bad.status, 400);
      const id = (await call(t.app, 'POST', `/api/workflow/${wf}`, { input: {} })).text;
      const done = await eventually(
        () => run(id),
        (r) => r.status === 'COMPLETED',
        30_000,
        'completed',
      );
      assert.equal(done.tasks[0].outputData.event_produced, `amqp:${q}`);
      assert.equal(done.tasks[0].outputData.workflowInstanceId, id);
      const got = await eventually(
        () => amqpDrain(q),
        (m) => m.length === 1,
        30_000,
        'amqp sink message',
      );
      assert.deepEqual((got[0] as Record<string, unknown>).k, 1);
      // NATS: a handler on the sink's subject sees the message.
      const name = `h-natsink-${tag}`;
      await register(t.app, [
        { name: `${wf}-h`, tasks: [{ name: 'h', taskReferenceName: 'h', type: 'HUMAN' }] },
      ]);
      await call(t.app, 'POST', '/api/event', {
        name,
        event: `nats:${s}`,
        active: true,
        actions: [
          {
            action: 'start_workflow',
            start_workflow: { name: `${wf}-h`, input: { k: '${k}', from: '${workflowInstanceId}' } },
          },
        ],
      });
      const page = await eventually(
        () => executions(name),
        (p) => p.totalHits === 1,
        30_000,
        'nats sink consumed',
      );
      const started = await run(String(page.results[0]?.output.workflowId));
      assert.equal(started.input.k, 2);
      assert.equal(started.input.from, id);
    });

    void it("sends a run's lifecycle events to an amqp: sink in order, one per change", async () => {
      const q = queue('status');
      const wf = `ev-life-${tag}`;
      await register(t.app, [
        {
          name: wf,
          workflowStatusListenerEnabled: true,
          workflowStatusListenerSink: `amqp:${q}`,
          tasks: [
            { name: 'h', taskReferenceName: 'h', type: 'HUMAN' },
            { name: 'n', taskReferenceName: 'n', type: 'NOOP' },
          ],
        },
      ]);
      const id = (await call(t.app, 'POST', `/api/workflow/${wf}`, { input: {} })).text;
      assert.equal((await call(t.app, 'PUT', `/api/workflow/${id}/pause`)).status, 200);
      assert.equal((await call(t.app, 'PUT', `/api/workflow/${id}/resume`)).status, 200);
      assert.equal((await call(t.app, 'POST', `/api/tasks/${id}/h/COMPLETED`, {})).status, 200);
      await eventually(
        () => run(id),
        (r) => r.status === 'COMPLETED',
        30_000,
        'completed',
      );
      const types = [
        'workflow.started',
        'task.scheduled',
        'workflow.paused',
        'workflow.resumed',
        'task.completed',
        'task.scheduled',
        'task.completed',
        'workflow.completed',
      ];
      const seen: Array<Record<string, unknown>> = [];
      await eventually(
        async () => {
          seen.push(...((await amqpDrain(q)) as Array<Record<string, unknown>>));
          return seen.length;
        },
        (n) => n >= types.length,
        30_000,
        'lifecycle events',
      );
      await new Promise((resolve) => setTimeout(resolve, 300));
      seen.push(...((await amqpDrain(q)) as Array<Record<string, unknown>>));
      assert.deepEqual(
        seen.map((e) => e.type),
        types,
      );
      assert.ok(seen.every((e) => e.workflowId === id));
      assert.equal(new Set(seen.map((e) => e.id)).size, seen.length, 'distinct ids');
      assert.deepEqual(
        seen.filter((e) => String(e.type).startsWith('task.')).map((e) => e.taskRefName),
        ['h', 'h', 'n', 'n'],
      );
    });

    void it('sends task failures, the run failing and a retry as events, in order', async () => {
      const q = queue('failures');
      const type = `ev_work_${tag}`;
      const wf = `ev-fail-${tag}`;
      await register(
        t.app,
        [
          {
            name: wf,
            workflowStatusListenerEnabled: true,
            workflowStatusListenerSink: `amqp:${q}`,
            tasks: [{ name: type, taskReferenceName: 'work', type: 'SIMPLE' }],
          },
        ],
        [{ name: type, retryCount: 1, retryDelaySeconds: 0, responseTimeoutSeconds: 60 }],
      );
      const bad = await call(t.app, 'POST', '/api/metadata/workflow', {
        name: `${wf}-bad`,
        workflowStatusListenerSink: 'kafka:topic',
        tasks: [{ name: 'n', taskReferenceName: 'n', type: 'NOOP' }],
      });
      assert.equal(bad.status, 400);
      assert.equal(bad.body.validationErrors[0].path, 'workflowStatusListenerSink');
      const id = (await call(t.app, 'POST', `/api/workflow/${wf}`, { input: {} })).text;
      for (let attempt = 0; attempt < 2; attempt++) {
        const polled = await call(t.app, 'GET', `/api/tasks/poll/${type}?workerid=w1`);
        assert.equal(polled.status, 200, polled.text);
        const res = await call(t.app, 'POST', '/api/tasks', {
          taskId: polled.body.taskId,
          workflowInstanceId: id,
          status: 'FAILED',
          reasonForIncompletion: `boom ${attempt}`,
        });
        assert.equal(res.status, 200, res.text);
      }
      await eventually(
        () => run(id),
        (r) => r.status === 'FAILED',
        30_000,
        'failed',
      );
      const retried = await call(t.app, 'POST', `/api/workflow/${id}/retry`);
      assert.equal(retried.status, 200, retried.text);
      const second = retried.text;
      const expected = [
        [id, 'workflow.started'],
        [id, 'task.scheduled'],
        [id, 'task.failed'],
        [id, 'task.scheduled'],
        [id, 'task.failed'],
        [id, 'workflow.failed'],
        [second, 'workflow.started'],
        [second, 'workflow.retried'],
        [second, 'task.scheduled'],
      ];
      const seen: Array<Record<string, unknown>> = [];
      await eventually(
        async () => {
          seen.push(...((await amqpDrain(q)) as Array<Record<string, unknown>>));
          return seen.length;
        },
        (n) => n >= expected.length,
        30_000,
        'failure events',
      );
      assert.deepEqual(
        seen.map((e) => [e.workflowId, e.type]),
        expected,
      );
      assert.equal(seen[2]?.reason, 'boom 0');
      assert.match(String(seen[5]?.reason), /boom 1/);
    });

    void it('an internal handler reacts to lifecycle events on the default baton: sink', async () => {
      const wf = `ev-watched-${tag}`;
      const follow = `ev-follow-${tag}`;
      await register(t.app, [
        {
          name: wf,
          workflowStatusListenerEnabled: true,
          tasks: [{ name: 'n', taskReferenceName: 'n', type: 'NOOP' }],
        },
        { name: follow, tasks: [{ name: 'h', taskReferenceName: 'h', type: 'HUMAN' }] },
      ]);
      const name = `h-follow-${tag}`;
      const res = await call(t.app, 'POST', '/api/event', {
        name,
        event: 'baton:workflow_status',
        active: true,
        condition: `$.type == 'workflow.completed' && $.workflowName == '${wf}'`,
        actions: [
          { action: 'start_workflow', start_workflow: { name: follow, input: { after: '${workflowId}' } } },
        ],
      });
      assert.equal(res.status, 200, res.text);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const id = (await call(t.app, 'POST', `/api/workflow/${wf}`, { input: {} })).text;
      const page = await eventually(
        () => executions(name),
        (p) => p.results.some((e) => e.status === 'COMPLETED'),
        30_000,
        'the follow-up start',
      );
      const done = page.results.find((e) => e.status === 'COMPLETED');
      const started = await run(String(done?.output.workflowId));
      assert.equal(started.workflowName ?? started.workflowType, follow);
      assert.equal(started.input.after, id);
      // The run's other events (started, task events) reached the handler and were skipped.
      assert.ok(page.results.some((e) => e.status === 'SKIPPED'));
      assert.equal((await call(t.app, 'DELETE', `/api/event/${name}`)).status, 200);
    });

    void it('keeps instruction texts by version; HUMAN carries the text; ${instructions.X} resolves', async () => {
      const name = `ins_${tag}`;
      const first = await call(t.app, 'POST', '/api/metadata/instructions', {
        name,
        text: 'Check the invoice',
      });
      assert.equal(first.status, 200, first.text);
      assert.equal(first.body.version, 1);
      const second = await call(t.app, 'POST', '/api/metadata/instructions', {
        name,
        text: '# Check the invoice and the PO',
        contentType: 'text/markdown',
      });
      assert.equal(second.body.version, 2);
      assert.equal(
        (await call(t.app, 'POST', '/api/metadata/instructions', { name, version: 1, text: 'x' })).status,
        409,
      );
      assert.equal((await call(t.app, 'GET', `/api/metadata/instructions/${name}`)).body.version, 2);
      assert.equal(
        (await call(t.app, 'GET', `/api/metadata/instructions/${name}?version=1`)).body.text,
        'Check the invoice',
      );
      assert.equal(
        (await call(t.app, 'GET', `/api/metadata/instructions/${name}/1`)).body.text,
        'Check the invoice',
      );
      assert.equal((await call(t.app, 'GET', `/api/metadata/instructions/nope-${tag}`)).status, 404);
      assert.equal(
        (await call(t.app, 'POST', '/api/metadata/instructions', { name: 'bad name', text: 'x' })).status,
        400,
      );
      const wf = `ev-human-${tag}`;
      await register(t.app, [
        {
          name: wf,
          tasks: [
            {
              name: 'review',
              taskReferenceName: 'review',
              type: 'HUMAN',
              instructions: name,
              assignee: 'ann',
            },
            {
              name: 'say',
              taskReferenceName: 'say',
              type: 'INLINE',
              inputParameters: {
                evaluatorType: 'javascript',
                expression: '$.t',
                t: `\${instructions.${name}}`,
              },
            },
          ],
        },
      ]);
      const id = (await call(t.app, 'POST', `/api/workflow/${wf}`, { input: {} })).text;
      const open = await run(id);
      assert.equal(open.tasks[0].inputData.instructions, '# Check the invoice and the PO');
      assert.equal(open.tasks[0].inputData.instructionsName, name);
      assert.equal(open.tasks[0].inputData.assignee, 'ann');
      assert.equal((await call(t.app, 'DELETE', `/api/metadata/instructions/${name}/2`)).status, 200);
      await call(t.app, 'POST', `/api/tasks/${id}/review/COMPLETED`, {});
      const done = await eventually(
        () => run(id),
        (r) => r.status === 'COMPLETED',
        30_000,
        'completed',
      );
      assert.equal(
        done.tasks[1].outputData.result,
        'Check the invoice',
        'the latest text when the task runs',
      );
    });

    void it('shows each configured broker on /health', async () => {
      const health = await call(t.app, 'GET', '/health');
      assert.equal(health.status, 200, health.text);
      assert.equal(health.body.components['broker-amqp'].status, 'UP');
      assert.equal(health.body.components['broker-nats'].status, 'UP');
    });
  });
}
