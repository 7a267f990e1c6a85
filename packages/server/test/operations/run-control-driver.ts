import assert from 'node:assert/strict';

import type { FastifyInstance } from 'fastify';

import { call } from '../helpers/app.js';
import { register } from '../helpers/app-suite.js';
import { pollTasks, postResult, runOf, startRun } from '../helpers/runs.js';
import { workerTaskDefs, workflowDef } from '../helpers/definitions.js';

/** Small client for the run-control suites: start runs, act as the worker, read runs. */
export class RunDriver {
  constructor(readonly app: FastifyInstance) {}

  register(
    defs: Array<Record<string, unknown>>,
    taskDefs: Array<Record<string, unknown>> = [],
  ): Promise<void> {
    return register(this.app, defs, taskDefs);
  }

  start(name: string, body: Record<string, unknown> = {}): Promise<string> {
    return startRun(this.app, name, body);
  }

  /** Takes every visible task of a type (at most `count`). */
  poll(type: string, count = 1): Promise<any[]> {
    return pollTasks(this.app, type, count);
  }

  async pollOne(type: string): Promise<any> {
    const [task] = await this.poll(type);
    assert.ok(task, `expected a ${type} task`);
    return task;
  }

  result(
    task: any,
    status: string,
    outputData: Record<string, unknown> = {},
    reason?: string,
  ): Promise<void> {
    return postResult(this.app, task, status, {
      outputData,
      ...(reason !== undefined && { reasonForIncompletion: reason }),
    });
  }

  async complete(type: string, outputData: Record<string, unknown> = {}): Promise<any> {
    const task = await this.pollOne(type);
    await this.result(task, 'COMPLETED', outputData);
    return task;
  }

  run(id: string): Promise<any> {
    return runOf(this.app, id);
  }

  async status(id: string): Promise<string> {
    return (await this.run(id)).status;
  }

  async taskStates(id: string): Promise<Array<[string, string]>> {
    return (await this.run(id)).tasks.map((t: any) => [t.referenceTaskName, t.status]);
  }

  /** Asserts a 409 whose message names the given status. */
  async conflict(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    url: string,
    status: string,
    body?: unknown,
  ): Promise<void> {
    const res = await call(this.app, method, url, body);
    assert.equal(res.status, 409, `${method} ${url}: ${res.status} ${res.text}`);
    assert.match(res.body.message, new RegExp(status), res.body.message);
  }

  async ok(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    url: string,
    body?: unknown,
  ): Promise<{ text: string; body: any }> {
    const res = await call(this.app, method, url, body);
    assert.equal(res.status, 200, `${method} ${url}: ${res.status} ${res.text}`);
    return res;
  }

  async queueSize(queue: string): Promise<number> {
    const res = await call(this.app, 'GET', '/api/tasks/queue/sizes');
    const q = res.body[queue];
    return q ? q.waiting + q.scheduled + q.inFlight : 0;
  }
}

/** rc_a → rc_b → rc_c, chained through their outputs (no retries: a failure fails the run). */
export function chainDefinitions(prefix: string): {
  taskDefs: Array<Record<string, unknown>>;
  def: (name: string, extra?: Record<string, unknown>) => Record<string, unknown>;
} {
  return {
    taskDefs: workerTaskDefs(['a', 'b', 'c'].map((s) => `${prefix}_${s}`)),
    def: (name, extra = {}) => ({
      ...workflowDef(
        name,
        [
          {
            name: `${prefix}_a`,
            taskReferenceName: 'a',
            type: 'SIMPLE',
            inputParameters: { x: '${workflow.input.x}' },
          },
          {
            name: `${prefix}_b`,
            taskReferenceName: 'b',
            type: 'SIMPLE',
            inputParameters: { fromA: '${a.output.y}' },
          },
          {
            name: `${prefix}_c`,
            taskReferenceName: 'c',
            type: 'SIMPLE',
            inputParameters: { fromB: '${b.output.z}' },
          },
        ],
        { final: '${c.output.done}', fromA: '${a.output.y}' },
      ),
      ...extra,
    }),
  };
}
