import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { WorkflowTask } from '@baton/protocol';

import { checkWorkflowDef } from '../../src/engine/validation/check-workflow-def.js';
import { Engine, T0, workflow } from './helpers.js';
import { noScripts } from '../../src/engine/scripts.js';

/** System calls in the interpreter: queued on internal queues, never run inside a decision. */

function callTask(type: string, extra: Partial<WorkflowTask> = {}): WorkflowTask {
  return {
    name: 'fetch_price',
    taskReferenceName: 'price',
    type,
    inputParameters: { http_request: { uri: 'https://example.com/${workflow.input.sku}', method: 'GET' } },
    ...extra,
  };
}

void describe('system-call kinds', () => {
  void it('queue an HTTP task on _system-HTTP with its lease, in the decision, without calling', () => {
    const engine = new Engine(workflow([callTask('HTTP')]), { input: { sku: 'a1' } });
    const decision = engine.start();
    const task = decision.newTasks[0];
    assert.ok(task);
    assert.equal(task.status, 'SCHEDULED');
    assert.equal(task.taskType, 'HTTP');
    assert.equal(task.taskDefName, 'fetch_price');
    assert.equal(task.queueName, '_system-HTTP');
    assert.equal(task.responseTimeoutSeconds, 30, 'the lease: 30 s unless the definition says less');
    assert.deepEqual(task.inputData, { http_request: { uri: 'https://example.com/a1', method: 'GET' } });
    const enqueue = decision.commands.find((c) => c.type === 'ENQUEUE');
    assert.deepEqual(enqueue, {
      type: 'ENQUEUE',
      taskId: task.taskId,
      queueName: '_system-HTTP',
      taskRef: 'price',
      attempt: 1,
      priority: 0,
      visibleAt: T0,
      lockMs: 30_000,
    });
  });

  void it('take the retry rules and a shorter lease from the task definition of their name', () => {
    const engine = new Engine(workflow([callTask('HTTP')]), {}, [
      { name: 'fetch_price', retryCount: 1, retryDelaySeconds: 5, responseTimeoutSeconds: 4 },
    ]);
    const [task] = engine.start().newTasks;
    assert.ok(task);
    assert.equal(task.responseTimeoutSeconds, 4);
    engine.now = T0 + 1000;
    engine.send({
      type: 'TASK_RESULT',
      result: {
        taskId: task.taskId,
        workflowInstanceId: engine.run.workflowId,
        status: 'FAILED',
        reasonForIncompletion: 'HTTP 500',
      },
    });
    const attempts = engine.all('price');
    assert.equal(attempts.length, 2);
    assert.equal(attempts[1]?.queueName, '_system-HTTP');
    assert.equal(attempts[1]?.retryCount, 1);
  });

  void it('get no new attempt without a task definition (Conductor retries only what a definition says)', () => {
    const engine = new Engine(workflow([callTask('HTTP', { optional: true })]), {});
    const [task] = engine.start().newTasks;
    assert.ok(task);
    engine.now = T0 + 1000;
    engine.send({
      type: 'TASK_RESULT',
      result: {
        taskId: task.taskId,
        workflowInstanceId: engine.run.workflowId,
        status: 'FAILED',
        reasonForIncompletion: 'no such host',
      },
    });
    const attempts = engine.all('price');
    assert.equal(attempts.length, 1, 'one attempt, no retry');
    assert.equal(attempts[0]?.status, 'COMPLETED_WITH_ERRORS');
    assert.equal(engine.run.status, 'COMPLETED');
  });

  void it("queue Conductor's CALL_MCP_TOOL and LIST_MCP_TOOLS on the CALL_TOOL and LIST_TOOLS queues", () => {
    const engine = new Engine(
      workflow([
        callTask('CALL_MCP_TOOL', { name: 'tool', taskReferenceName: 'tool', inputParameters: {} }),
        callTask('LIST_MCP_TOOLS', { name: 'list', taskReferenceName: 'list', inputParameters: {} }),
      ]),
    );
    const [tool] = engine.start().newTasks;
    assert.equal(tool?.queueName, '_system-CALL_TOOL');
    assert.equal(tool?.taskType, 'CALL_MCP_TOOL');
    engine.send({
      type: 'TASK_RESULT',
      result: {
        taskId: tool?.taskId ?? '',
        workflowInstanceId: engine.run.workflowId,
        status: 'COMPLETED',
        outputData: {},
      },
    });
    assert.equal(engine.all('list')[0]?.queueName, '_system-LIST_TOOLS');
  });

  void it('an IN_PROGRESS result with detach takes the task off its queue, still open (asyncComplete)', () => {
    const engine = new Engine(workflow([callTask('HTTP', { asyncComplete: true })]));
    const [task] = engine.start().newTasks;
    assert.ok(task);
    const decision = engine.send({
      type: 'TASK_RESULT',
      result: {
        taskId: task.taskId,
        workflowInstanceId: engine.run.workflowId,
        status: 'IN_PROGRESS',
        outputData: { response: { statusCode: 200 } },
      },
      detach: true,
    });
    const after = engine.all('price')[0];
    assert.equal(after?.status, 'IN_PROGRESS');
    assert.equal(after?.queueName, undefined);
    assert.deepEqual(after?.outputData, { response: { statusCode: 200 } });
    assert.deepEqual(
      decision.commands.map((c) => c.type),
      ['DEQUEUE'],
    );
  });

  void it('are refused at registration without a handler, and checked by their handler with one', () => {
    const def = {
      ...workflow([callTask('HTTP'), callTask('CALL_MCP_TOOL', { taskReferenceName: 'other' })]),
    };
    const without = checkWorkflowDef(def, { taskDefNames: new Set(), scripts: noScripts });
    assert.deepEqual(
      without.map((e) => [e.path, e.message]),
      [
        ['tasks[0].type', 'task type HTTP is not supported by this server: no executor handles it'],
        ['tasks[1].type', 'task type CALL_MCP_TOOL is not supported by this server: no executor handles it'],
      ],
    );
    const asked: string[] = [];
    const withHandlers = checkWorkflowDef(def, {
      taskDefNames: new Set(),
      scripts: noScripts,
      systemCalls: {
        supports: (kind) => kind === 'HTTP' || kind === 'CALL_TOOL',
        check: (kind, _node, path) => {
          asked.push(`${kind}@${path}`);
          return kind === 'CALL_TOOL'
            ? [{ path: `${path}.inputParameters.tool`, message: 'no such tool' }]
            : [];
        },
      },
    });
    assert.deepEqual(asked, ['HTTP@tasks[0]', 'CALL_TOOL@tasks[1]']);
    assert.deepEqual(withHandlers, [{ path: 'tasks[1].inputParameters.tool', message: 'no such tool' }]);
  });
});
