import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ValidationError } from '@baton/protocol';
import { checkTaskDef } from '../../src/engine/validation/check-task-def.js';
import { checkWorkflowDef } from '../../src/engine/validation/check-workflow-def.js';
import { workerTaskNames } from '../../src/engine/graph.js';
import { noScripts } from '../../src/engine/scripts.js';

const ctx = { taskDefNames: new Set(['registered_type']), scripts: noScripts };

function valid(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'wf',
    schemaVersion: 2,
    tasks: [
      {
        name: 'a_type',
        taskReferenceName: 'a',
        type: 'SIMPLE',
        inputParameters: { x: '${workflow.input.x}' },
      },
      {
        name: 'b_type',
        taskReferenceName: 'b',
        inputParameters: { y: '${a.output.y}', id: '${CPEWF_TASK_ID}' },
      },
    ],
    outputParameters: { out: '${b.output}' },
    ...extra,
  };
}

function withTask(task: Record<string, unknown>): Record<string, unknown> {
  return valid({ tasks: [...(valid().tasks as unknown[]), task] });
}

function paths(errors: ValidationError[]): string[] {
  return errors.map((e) => e.path);
}

void describe('checkWorkflowDef', () => {
  void it('accepts a valid definition', () => {
    assert.deepEqual(checkWorkflowDef(valid(), ctx), []);
  });

  void it('accepts an expression naming a task defined later, and an unknown type with a registered definition', () => {
    const def = valid({
      tasks: [
        { name: 'a_type', taskReferenceName: 'a', inputParameters: { fromLater: '${b.output.x}' } },
        { name: 'registered_type', taskReferenceName: 'b', type: 'CUSTOM_THING' },
        {
          name: 'inline_type',
          taskReferenceName: 'c',
          type: 'OTHER',
          taskDefinition: { name: 'inline_type' },
        },
      ],
      outputParameters: {},
    });
    assert.deepEqual(checkWorkflowDef(def, ctx), []);
  });

  const cases: Array<{ title: string; def: unknown; error: ValidationError }> = [
    {
      title: 'not an object',
      def: [1],
      error: { path: '', message: 'WorkflowDef must be a JSON object', invalidValue: [1] },
    },
    {
      title: 'name missing',
      def: valid({ name: undefined }),
      error: { path: 'name', message: 'WorkflowDef name cannot be null or empty', invalidValue: null },
    },
    {
      title: 'name empty',
      def: valid({ name: '  ' }),
      error: { path: 'name', message: 'WorkflowDef name cannot be null or empty', invalidValue: '  ' },
    },
    {
      title: 'tasks missing',
      def: valid({ tasks: undefined, outputParameters: {} }),
      error: { path: 'tasks', message: 'WorkflowTask list cannot be empty', invalidValue: null },
    },
    {
      title: 'tasks empty',
      def: valid({ tasks: [], outputParameters: {} }),
      error: { path: 'tasks', message: 'WorkflowTask list cannot be empty', invalidValue: [] },
    },
    {
      title: 'tasks not a list',
      def: valid({ tasks: { a: 1 }, outputParameters: {} }),
      error: { path: 'tasks', message: 'tasks must be a list of tasks', invalidValue: { a: 1 } },
    },
    {
      title: 'schemaVersion 1',
      def: valid({ schemaVersion: 1 }),
      error: {
        path: 'schemaVersion',
        message: 'workflowDef schemaVersion: 2 is only supported',
        invalidValue: 1,
      },
    },
    {
      title: 'timeoutSeconds negative',
      def: valid({ timeoutSeconds: -1 }),
      error: { path: 'timeoutSeconds', message: 'timeoutSeconds: -1 must be >= 0', invalidValue: -1 },
    },
    {
      title: 'timeoutSeconds not an integer',
      def: valid({ timeoutSeconds: 1.5 }),
      error: { path: 'timeoutSeconds', message: 'timeoutSeconds must be an integer', invalidValue: 1.5 },
    },
    {
      title: 'timeoutPolicy',
      def: valid({ timeoutPolicy: 'RETRY' }),
      error: {
        path: 'timeoutPolicy',
        message: 'timeoutPolicy: RETRY is not one of TIME_OUT_WF, ALERT_ONLY',
        invalidValue: 'RETRY',
      },
    },
    {
      title: 'restartable',
      def: valid({ restartable: 'yes' }),
      error: { path: 'restartable', message: 'restartable must be a boolean', invalidValue: 'yes' },
    },
    {
      title: 'outputParameters',
      def: valid({ outputParameters: 'x' }),
      error: {
        path: 'outputParameters',
        message: 'outputParameters must be a JSON object',
        invalidValue: 'x',
      },
    },
    {
      title: 'inputTemplate',
      def: valid({ inputTemplate: [1] }),
      error: { path: 'inputTemplate', message: 'inputTemplate must be a JSON object', invalidValue: [1] },
    },
    {
      title: 'variables',
      def: valid({ variables: 3 }),
      error: { path: 'variables', message: 'variables must be a JSON object', invalidValue: 3 },
    },
    {
      title: 'task not an object',
      def: withTask('x' as unknown as Record<string, unknown>),
      error: { path: 'tasks[2]', message: 'task must be a JSON object', invalidValue: 'x' },
    },
    {
      title: 'task name',
      def: withTask({ taskReferenceName: 'c' }),
      error: {
        path: 'tasks[2].name',
        message: 'WorkflowTask name cannot be empty or null',
        invalidValue: null,
      },
    },
    {
      title: 'task ref',
      def: withTask({ name: 'c', taskReferenceName: '' }),
      error: {
        path: 'tasks[2].taskReferenceName',
        message: 'WorkflowTask taskReferenceName name cannot be empty or null',
        invalidValue: '',
      },
    },
    {
      title: 'duplicate ref',
      def: withTask({ name: 'c', taskReferenceName: 'a' }),
      error: {
        path: 'tasks[2].taskReferenceName',
        message: 'taskReferenceName: a should be unique across tasks for a given workflowDefinition: wf',
        invalidValue: 'a',
      },
    },
    {
      title: 'unknown type without a task definition',
      def: withTask({ name: 'nothing_here', taskReferenceName: 'c', type: 'MYSTERY' }),
      error: {
        path: 'tasks[2].type',
        message: "unknown task type 'MYSTERY' and no task definition named 'nothing_here' is registered",
        invalidValue: 'MYSTERY',
      },
    },
    {
      title: 'known kind not implemented',
      def: withTask({ name: 'kp', taskReferenceName: 'c', type: 'KAFKA_PUBLISH' }),
      error: {
        path: 'tasks[2].type',
        message: 'task type KAFKA_PUBLISH is not supported by this server yet',
        invalidValue: 'KAFKA_PUBLISH',
      },
    },
    {
      title: 'type not a string',
      def: withTask({ name: 'c', taskReferenceName: 'c', type: 5 }),
      error: { path: 'tasks[2].type', message: 'type must be a non-empty string', invalidValue: 5 },
    },
    {
      title: 'retryCount',
      def: withTask({ name: 'c', taskReferenceName: 'c', retryCount: -2 }),
      error: { path: 'tasks[2].retryCount', message: 'retryCount: -2 must be >= 0', invalidValue: -2 },
    },
    {
      title: 'startDelay',
      def: withTask({ name: 'c', taskReferenceName: 'c', startDelay: '10' }),
      error: { path: 'tasks[2].startDelay', message: 'startDelay must be an integer', invalidValue: '10' },
    },
    {
      title: 'optional',
      def: withTask({ name: 'c', taskReferenceName: 'c', optional: 'true' }),
      error: { path: 'tasks[2].optional', message: 'optional must be a boolean', invalidValue: 'true' },
    },
    {
      title: 'inputParameters',
      def: withTask({ name: 'c', taskReferenceName: 'c', inputParameters: [1] }),
      error: {
        path: 'tasks[2].inputParameters',
        message: 'inputParameters must be a JSON object',
        invalidValue: [1],
      },
    },
    {
      title: 'inline taskDefinition',
      def: withTask({ name: 'c', taskReferenceName: 'c', taskDefinition: { name: 'c', retryCount: -1 } }),
      error: {
        path: 'tasks[2].taskDefinition.retryCount',
        message: 'TaskDef retryCount: -1 must be >= 0',
        invalidValue: -1,
      },
    },
    {
      title: 'expression naming no task',
      def: withTask({
        name: 'c',
        taskReferenceName: 'c',
        inputParameters: { x: { y: ['${nope.output.y}'] } },
      }),
      error: {
        path: 'tasks[2].inputParameters.x.y[0]',
        message: "'${nope.output.y}' names no task 'nope' in this workflow",
        invalidValue: '${nope.output.y}',
      },
    },
    {
      title: 'expression with an odd key',
      def: withTask({ name: 'c', taskReferenceName: 'c', inputParameters: { 'a b': 'x ${ghost.output}' } }),
      error: {
        path: "tasks[2].inputParameters['a b']",
        message: "'x ${ghost.output}' names no task 'ghost' in this workflow",
        invalidValue: 'x ${ghost.output}',
      },
    },
    {
      title: 'expression in outputParameters',
      def: valid({ outputParameters: { r: '${missing.output}' } }),
      error: {
        path: 'outputParameters.r',
        message: "'${missing.output}' names no task 'missing' in this workflow",
        invalidValue: '${missing.output}',
      },
    },
    {
      title: 'environment variable names are not task refs',
      def: withTask({ name: 'c', taskReferenceName: 'c', inputParameters: { e: '${HOME}' } }),
      error: {
        path: 'tasks[2].inputParameters.e',
        message: "'${HOME}' names no task 'HOME' in this workflow",
        invalidValue: '${HOME}',
      },
    },
  ];
  for (const c of cases) {
    void it(c.title, () => {
      assert.deepEqual(checkWorkflowDef(c.def, ctx), [c.error]);
    });
  }

  void it('lists every problem of a definition, not just the first', () => {
    const def = {
      name: '',
      schemaVersion: 3,
      tasks: [
        { name: 'x', taskReferenceName: 'dup', inputParameters: { a: '${nope.output}' } },
        { name: 'y', taskReferenceName: 'dup', type: 'KAFKA_PUBLISH', retryCount: -1 },
        { taskReferenceName: 'z', type: 'UNKNOWN_KIND' },
      ],
      outputParameters: { o: '${gone.output}' },
    };
    const errors = checkWorkflowDef(def, ctx);
    assert.deepEqual(paths(errors), [
      'name',
      'schemaVersion',
      'tasks[0].inputParameters.a',
      'tasks[1].taskReferenceName',
      'tasks[1].retryCount',
      'tasks[1].type',
      'tasks[2].name',
      'outputParameters.o',
    ]);
    assert.match(
      errors[3]!.message,
      /taskReferenceName: dup should be unique across tasks for a given workflowDefinition: /,
    );
  });

  void it('sees refs in nested lists (unique across the whole tree)', () => {
    const def = valid({
      tasks: [
        { name: 'a_type', taskReferenceName: 'a' },
        {
          name: 'sw',
          taskReferenceName: 'sw',
          type: 'SWITCH',
          evaluatorType: 'value-param',
          expression: 'x',
          decisionCases: { one: [{ name: 'a_type', taskReferenceName: 'a' }] },
          defaultCase: [{ name: 'b_type', taskReferenceName: 'b' }],
        },
      ],
    });
    assert.deepEqual(paths(checkWorkflowDef(def, ctx)), ['tasks[1].decisionCases.one[0].taskReferenceName']);
  });
});

void describe('workerTaskNames', () => {
  void it('names every SIMPLE, unknown-type or system-call task of the tree once', () => {
    const names = workerTaskNames({
      name: 'wf',
      tasks: [
        { name: 'a', taskReferenceName: 'a' },
        { name: 'b', taskReferenceName: 'b', type: 'SIMPLE' },
        { name: 'a', taskReferenceName: 'a2' },
        { name: 'custom', taskReferenceName: 'c', type: 'MINE' },
        { name: 'http', taskReferenceName: 'h', type: 'HTTP' },
        {
          name: 'sw',
          taskReferenceName: 'sw',
          type: 'SWITCH',
          decisionCases: { x: [{ name: 'inner', taskReferenceName: 'i' }] },
        },
      ],
    });
    // A system call (HTTP) takes the task definition of its name too (retries, lease).
    assert.deepEqual(names, ['a', 'b', 'custom', 'http', 'inner']);
  });
});

void describe('checkTaskDef', () => {
  void it('accepts a valid definition', () => {
    assert.deepEqual(
      checkTaskDef({
        name: 'resize',
        retryCount: 2,
        retryLogic: 'EXPONENTIAL_BACKOFF',
        timeoutSeconds: 600,
        responseTimeoutSeconds: 60,
        totalTimeoutSeconds: 1200,
        timeoutPolicy: 'RETRY',
        backoffScaleFactor: 2,
        rateLimitPerFrequency: 10,
        rateLimitFrequencyInSeconds: 1,
        inputSchema: { type: 'object', properties: { w: { type: 'integer' } }, required: ['w'] },
        outputSchema: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', $defs: {} },
      }),
      [],
    );
  });

  const cases: Array<{ title: string; def: unknown; error: ValidationError }> = [
    {
      title: 'not an object',
      def: 'x',
      error: { path: '', message: 'TaskDef must be a JSON object', invalidValue: 'x' },
    },
    {
      title: 'name',
      def: {},
      error: { path: 'name', message: 'TaskDef name cannot be null or empty', invalidValue: null },
    },
    {
      title: 'retryCount',
      def: { name: 'n', retryCount: -1 },
      error: { path: 'retryCount', message: 'TaskDef retryCount: -1 must be >= 0', invalidValue: -1 },
    },
    {
      title: 'retryCount type',
      def: { name: 'n', retryCount: '3' },
      error: { path: 'retryCount', message: 'retryCount must be an integer', invalidValue: '3' },
    },
    {
      title: 'pollTimeoutSeconds',
      def: { name: 'n', pollTimeoutSeconds: -5 },
      error: {
        path: 'pollTimeoutSeconds',
        message: 'TaskDef pollTimeoutSeconds: -5 must be >= 0',
        invalidValue: -5,
      },
    },
    {
      title: 'responseTimeoutSeconds minimum',
      def: { name: 'n', responseTimeoutSeconds: 0 },
      error: {
        path: 'responseTimeoutSeconds',
        message: 'TaskDef responseTimeoutSeconds: 0 should be minimum 1 second',
        invalidValue: 0,
      },
    },
    {
      title: 'responseTimeoutSeconds over timeoutSeconds',
      def: { name: 'n', timeoutSeconds: 10, responseTimeoutSeconds: 20 },
      error: {
        path: 'responseTimeoutSeconds',
        message: 'TaskDef: n responseTimeoutSeconds: 20 must be less than timeoutSeconds: 10',
        invalidValue: 20,
      },
    },
    {
      title: 'default responseTimeoutSeconds over timeoutSeconds (as Conductor)',
      def: { name: 'n', timeoutSeconds: 10 },
      error: {
        path: 'responseTimeoutSeconds',
        message: 'TaskDef: n responseTimeoutSeconds: 3600 must be less than timeoutSeconds: 10',
        invalidValue: 3600,
      },
    },
    {
      title: 'timeoutSeconds over totalTimeoutSeconds',
      def: { name: 'n', timeoutSeconds: 100, responseTimeoutSeconds: 10, totalTimeoutSeconds: 50 },
      error: {
        path: 'timeoutSeconds',
        message: 'TaskDef: n timeoutSeconds: 100 must be less than or equal to totalTimeoutSeconds: 50',
        invalidValue: 100,
      },
    },
    {
      title: 'timeoutPolicy',
      def: { name: 'n', timeoutPolicy: 'NEVER' },
      error: {
        path: 'timeoutPolicy',
        message: 'TaskDef timeoutPolicy: NEVER is not one of RETRY, TIME_OUT_WF, ALERT_ONLY',
        invalidValue: 'NEVER',
      },
    },
    {
      title: 'retryLogic',
      def: { name: 'n', retryLogic: 'RANDOM' },
      error: {
        path: 'retryLogic',
        message: 'TaskDef retryLogic: RANDOM is not one of FIXED, LINEAR_BACKOFF, EXPONENTIAL_BACKOFF',
        invalidValue: 'RANDOM',
      },
    },
    {
      title: 'backoffScaleFactor',
      def: { name: 'n', backoffScaleFactor: 0 },
      error: {
        path: 'backoffScaleFactor',
        message: 'TaskDef backoffScaleFactor: 0 must be >= 1',
        invalidValue: 0,
      },
    },
    {
      title: 'rate limit without its window',
      def: { name: 'n', rateLimitPerFrequency: 5 },
      error: {
        path: 'rateLimitFrequencyInSeconds',
        message: 'rateLimitPerFrequency and rateLimitFrequencyInSeconds must be given together',
      },
    },
    {
      title: 'rate limit window without the limit',
      def: { name: 'n', rateLimitFrequencyInSeconds: 5 },
      error: {
        path: 'rateLimitPerFrequency',
        message: 'rateLimitPerFrequency and rateLimitFrequencyInSeconds must be given together',
      },
    },
    {
      title: 'inputTemplate',
      def: { name: 'n', inputTemplate: 'x' },
      error: { path: 'inputTemplate', message: 'inputTemplate must be a JSON object', invalidValue: 'x' },
    },
  ];
  for (const c of cases) {
    void it(c.title, () => {
      assert.deepEqual(checkTaskDef(c.def), [c.error]);
    });
  }

  void it('reports a schema that does not compile, with the ajv error', () => {
    const errors = checkTaskDef({
      name: 'n',
      inputSchema: { type: 'objekt' },
      outputSchema: { $ref: '#/nowhere' },
    });
    assert.deepEqual(paths(errors), ['inputSchema', 'outputSchema']);
    assert.match(errors[0]!.message, /^inputSchema: does not compile: schema is invalid: data\/type must be/);
    assert.match(errors[1]!.message, /^outputSchema: does not compile: .*nowhere/);
  });

  void it("accepts Conductor's SchemaDef wrapper and checks its data", () => {
    assert.deepEqual(
      checkTaskDef({ name: 'n', inputSchema: { name: 's', type: 'JSON', data: { type: 'string' } } }),
      [],
    );
    assert.deepEqual(paths(checkTaskDef({ name: 'n', inputSchema: { name: 's', type: 'AVRO', data: {} } })), [
      'inputSchema',
    ]);
  });

  void it('lists every problem', () => {
    const errors = checkTaskDef({
      retryCount: -1,
      responseTimeoutSeconds: 0,
      retryLogic: 'X',
      rateLimitPerFrequency: 1,
    });
    assert.deepEqual(paths(errors), [
      'name',
      'retryCount',
      'responseTimeoutSeconds',
      'retryLogic',
      'rateLimitFrequencyInSeconds',
    ]);
  });
});
