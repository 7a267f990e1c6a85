import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { call } from '../helpers/app.js';
import { workflowDef } from '../helpers/definitions.js';
import { storeCases } from '../helpers/stores.js';
import { scenarioHarness, shape, task, worker } from './conductor-scenarios-harness.js';

/**
 * The scenarios of Conductor's integration specs for system tasks (JSON_JQ_TRANSFORM, LAMBDA,
 * TERMINATE, SET_VARIABLE, WAIT, START_WORKFLOW), failure workflows and child runs, replayed
 * through the real routes on Baton's own definitions (same shapes, kinds and expressions; our
 * names). Scripts run in the real sandbox and jq is the real jq.
 */

type Fields = Record<string, unknown>;
const lambda = (ref: string, inputParameters: Fields) => task('LAMBDA', ref, { inputParameters });
const jq = (ref: string, inputParameters: Fields) => task('JSON_JQ_TRANSFORM', ref, { inputParameters });
const wait = (ref: string) => task('WAIT', ref);
const terminate = (ref: string, terminationStatus: string, workflowOutput: unknown) =>
  task('TERMINATE', ref, { inputParameters: { terminationStatus, workflowOutput } });
const subWorkflow = (ref: string, name: string, inputParameters: Fields = {}) =>
  task('SUB_WORKFLOW', ref, { subWorkflowParam: { name }, inputParameters });
/** The LAMBDA of the terminate and failure workflows: answers whether the run's input `a` is 1. */
const checkA = lambda('check', {
  input: '${workflow.input}',
  scriptExpression: 'return { testvalue: $.input.a == 1 };',
});
/** The LAMBDAs of the parent workflows: a figure that depends on the input `lambdaValue`. */
const figure = (ref: string) =>
  lambda(ref, {
    lambdaValue: '${workflow.input.lambdaValue}',
    scriptExpression:
      "var base = 10; return $.lambdaValue == 1 ? { testvalue: 'one', iValue: base } : { testvalue: 'not one', iValue: base + 3 };",
  });
const withFailureWorkflow = (def: Record<string, unknown>) => ({ ...def, failureWorkflow: 'cs_failure' });

const concatQuery = '.input as $in | { out: ($in.in1.array + $in.in2.array) }';
/** Defaults for a request: each `a // b` in parentheses, as real jq needs inside an object. */
const defaultsQuery =
  '{ requestTransform: (.input.requestTransform // ".body"), responseTransform: (.input.responseTransform // ".response.body"), method: (.input.method // "GET") }';

/** In registration order: a child's definition before its parent's. */
const definitions = [
  // JsonJQTransformSpec: one jq task concatenating two arrays of the input.
  workflowDef('cs_jq_simple', [jq('concat', { input: '${workflow.input}', queryExpression: concatQuery })]),
  // JsonJQTransformSpec: a jq task fills in defaults; the next runs the filter it picked as its own.
  workflowDef('cs_jq_sequential', [
    jq('defaults', { input: '${workflow.input}', queryExpression: defaultsQuery }),
    jq('apply_request', {
      body: '${workflow.input.body}',
      queryExpression: '${defaults.output.result.requestTransform}',
    }),
  ]),
  // JsonJQTransformSpec: jq results of other shapes (a string, a list) feeding DECISIONs, one on
  // a value and one on a script. Conductor's has an HTTP call in the case never taken; Baton has
  // no HTTP kind, so a NOOP stands there.
  workflowDef('cs_jq_result', [
    jq('lookup', { queryExpression: 'if ((.data // []) | length) > 0 then "EXISTS" else "CREATE" end' }),
    task('DECISION', 'on_lookup', {
      caseValueParam: 'outcome',
      inputParameters: { outcome: '${lookup.output.result}' },
      decisionCases: {
        CREATE: [
          jq('actions', {
            inputData: {
              request: {
                transitions: [
                  { name: 'redeliver' },
                  { name: 'redeliver_later' },
                  { name: 'return_to_sender' },
                ],
              },
            },
            queryExpression: '[.inputData.request.transitions[].name]',
          }),
          task('DECISION', 'allowed', {
            caseExpression: "$.availableActions.indexOf($.requestedAction) >= 0 ? 'true' : 'false'",
            inputParameters: {
              requestedAction: '${workflow.input.requestedAction}',
              availableActions: '${actions.output.result}',
            },
            decisionCases: { false: [task('NOOP', 'unavailable')] },
          }),
        ],
      },
    }),
  ]),
  // LambdaAndTerminateTaskSpec / FailureWorkflowSpec: a LAMBDA, a TERMINATE with its output, a
  // worker never reached; a failure workflow of one LAMBDA.
  workflowDef('cs_lambda', [checkA]),
  withFailureWorkflow(
    workflowDef('cs_terminate_completed', [
      checkA,
      terminate('stop', 'COMPLETED', '${check.output}'),
      worker('cs_task_2', 'never'),
    ]),
  ),
  withFailureWorkflow(
    workflowDef('cs_terminate_failed', [
      checkA,
      terminate('stop', 'FAILED', '${check.output}'),
      worker('cs_task_2', 'never'),
    ]),
  ),
  workflowDef('cs_failure', [checkA]),
  // LambdaAndTerminateTaskSpec: a TERMINATE in a DECISION case, with a string for output.
  workflowDef(
    'cs_decision_terminate',
    [
      worker('cs_task_1', 'first', { tp11: '${workflow.input.param1}', tp12: '${workflow.input.param2}' }),
      task('DECISION', 'choose', {
        caseValueParam: 'case',
        inputParameters: { case: '${workflow.input.case}' },
        decisionCases: {
          one: [worker('cs_task_2', 'second')],
          two: [terminate('stop', 'FAILED', '${first.output.op}')],
        },
      }),
      worker('cs_task_3', 'third'),
    ],
    { o2: '${third.output.op}' },
  ),
  // LambdaAndTerminateTaskSpec: a fork whose one branch holds a child run, the other a WAIT then a
  // TERMINATE, then another WAIT; the join waits on the child and on that last WAIT.
  workflowDef('cs_terminate_child', [wait('hold_child')]),
  workflowDef('cs_terminate_parent', [
    task('FORK_JOIN', 'split', {
      forkTasks: [
        [figure('lambdaA'), subWorkflow('child', 'cs_terminate_child')],
        [figure('lambdaB'), wait('hold'), terminate('stop', 'COMPLETED', 'some output'), wait('never')],
      ],
    }),
    task('JOIN', 'merge', { joinOn: ['child', 'never'] }),
  ]),
  // FailureWorkflowSpec: a child run that a TERMINATE fails, under a parent with a failure workflow.
  workflowDef('cs_failed_child', [
    checkA,
    terminate('stop', 'FAILED', '${check.output}'),
    worker('cs_task_2', 'never'),
  ]),
  withFailureWorkflow(
    workflowDef('cs_failed_parent', [
      figure('lambdaA'),
      subWorkflow('failing_child', 'cs_failed_child'),
      figure('lambdaB'),
    ]),
  ),
  // SetVariableTaskSpec: one SET_VARIABLE from the run's input; the run's output shows the variables.
  workflowDef(
    'cs_set_variable',
    [task('SET_VARIABLE', 'remember', { inputParameters: { var: '${workflow.input.var}' } })],
    { variables: '${workflow.variables}' },
  ),
  // WaitTaskSpec: a WAIT without a duration, then a worker.
  workflowDef('cs_wait', [wait('hold'), worker('cs_task_1', 'after')]),
  // SubWorkflowSpec: a worker, then a child run of one worker task.
  workflowDef('cs_sub_child', [worker('cs_child_task', 'only')]),
  workflowDef('cs_sub_parent', [
    worker('cs_task_1', 'first', { p1: '${workflow.input.param1}', p2: '${workflow.input.param2}' }),
    subWorkflow('child', 'cs_sub_child', {
      param1: '${workflow.input.param1}',
      param2: '${workflow.input.param2}',
    }),
  ]),
  // StartWorkflowSpec: one START_WORKFLOW taking its request from the run's input.
  workflowDef('cs_start_another', [
    task('START_WORKFLOW', 'launch', {
      inputParameters: { startWorkflow: '${workflow.input.startWorkflow}' },
    }),
  ]),
];

for (const storeCase of storeCases()) {
  describe(`Conductor scenarios: system tasks, failure workflows and child runs (${storeCase.name})`, () => {
    const s = scenarioHarness(storeCase, definitions);

    describe('JsonJQTransformSpec', () => {
      it('a jq transform succeeds: result and resultList', async () => {
        const id = await s.start('cs_jq_simple', { in1: { array: ['a', 'b'] }, in2: { array: ['c', 'd'] } });
        const wf = await s.run(id);
        assert.equal(wf.status, 'COMPLETED');
        assert.deepEqual(shape(wf), [['JSON_JQ_TRANSFORM', 'COMPLETED']]);
        assert.deepEqual(wf.tasks[0].outputData.result, { out: ['a', 'b', 'c', 'd'] });
        assert.deepEqual(wf.tasks[0].outputData.resultList, [{ out: ['a', 'b', 'c', 'd'] }]);
      });

      it("a jq transform fails with jq's message as the reason", async () => {
        const id = await s.start('cs_jq_simple', { in1: 'a', in2: 'b' });
        const wf = await s.run(id);
        assert.equal(wf.status, 'FAILED');
        assert.deepEqual(shape(wf), [['JSON_JQ_TRANSFORM', 'FAILED']]);
        assert.equal(wf.tasks[0].reasonForIncompletion, 'Cannot index string with string "array"');
      });

      it('two jq transforms in a row, the second running the filter the first chose', async () => {
        // Conductor's jackson-jq accepts `a // b` unparenthesized as an object value; real jq
        // (docs/design/definitions.md#expressions-and-scripts) does not compile it, so Baton
        // refuses it at registration, naming task and field.
        const refused = await call(
          s.t().app,
          'POST',
          '/api/metadata/workflow',
          workflowDef('cs_jq_unparenthesized', [
            jq('defaults', {
              input: '${workflow.input}',
              queryExpression: '{ method: .input.method // "GET" }',
            }),
          ]),
        );
        assert.equal(refused.status, 400, refused.text);
        assert.equal(refused.body.validationErrors[0].path, 'tasks[0].inputParameters.queryExpression');
        assert.match(
          refused.body.validationErrors[0].message,
          /^the jq filter of JSON_JQ_TRANSFORM task defaults does not compile/,
        );

        const input = {
          method: 'POST',
          body: { name: 'Beary Beariston', title: 'the Brown Bear' },
          requestTransform: '{name: (.body.name + " you are " + .body.title) }',
          responseTransform: '{result: "reply: " + .response.body.message}',
        };
        const id = await s.start('cs_jq_sequential', input);
        const wf = await s.run(id);
        assert.equal(wf.status, 'COMPLETED', wf.reasonForIncompletion);
        assert.deepEqual(shape(wf), [
          ['JSON_JQ_TRANSFORM', 'COMPLETED'],
          ['JSON_JQ_TRANSFORM', 'COMPLETED'],
        ]);
        const defaults = wf.tasks[0].outputData.result;
        assert.ok('resultList' in wf.tasks[0].outputData);
        assert.equal(defaults.method, input.method);
        assert.equal(defaults.requestTransform, input.requestTransform);
        assert.equal(defaults.responseTransform, input.responseTransform);
        assert.equal(wf.tasks[1].outputData.result.name, 'Beary Beariston you are the Brown Bear');
      });

      it('jq results of other shapes drive decisions', async () => {
        const id = await s.start('cs_jq_result', { requestedAction: 'redeliver' });
        const wf = await s.run(id);
        assert.equal(wf.status, 'COMPLETED', wf.reasonForIncompletion);
        assert.deepEqual(shape(wf), [
          ['JSON_JQ_TRANSFORM', 'COMPLETED'],
          ['DECISION', 'COMPLETED'],
          ['JSON_JQ_TRANSFORM', 'COMPLETED'],
          ['DECISION', 'COMPLETED'],
        ]);
        assert.equal(wf.tasks[0].outputData.result, 'CREATE');
        assert.ok('resultList' in wf.tasks[0].outputData);
        assert.equal(wf.tasks[1].inputData.case, 'CREATE');
        const actions = wf.tasks[2].outputData.result;
        assert.equal(actions.length, 3);
        assert.ok(actions.includes('redeliver'));
        assert.equal(wf.tasks[3].inputData.case, 'true');
      });

      it('rerunning a failed jq transform from it with a new task input', async () => {
        const id = await s.start('cs_jq_simple', { in1: 'a', in2: 'b' });
        const failed = await s.run(id);
        assert.equal(failed.status, 'FAILED');
        assert.equal(failed.tasks[0].reasonForIncompletion, 'Cannot index string with string "array"');
        // Conductor reruns the run in place; Baton's rerun makes a NEW run
        // (docs/design/runs.md#retry-restart-and-rerun-make-new-runs), linked rerun_of. The request
        // names the task by id (`reRunFromTaskId`), as Conductor's does.
        const rerun = await call(s.t().app, 'POST', `/api/workflow/${id}/rerun`, {
          reRunFromWorkflowId: id,
          reRunFromTaskId: failed.tasks[0].taskId,
          taskInput: {
            input: { in1: { array: ['a', 'b'] }, in2: { array: ['c', 'd'] } },
            queryExpression: concatQuery,
          },
        });
        assert.equal(rerun.status, 200, rerun.text);
        s.track(rerun.text);
        const wf = await s.until(rerun.text, ['COMPLETED', 'FAILED']);
        assert.equal(wf.status, 'COMPLETED');
        assert.deepEqual(shape(wf), [['JSON_JQ_TRANSFORM', 'COMPLETED']]);
        assert.deepEqual(wf.tasks[0].outputData.result, { out: ['a', 'b', 'c', 'd'] });
        assert.ok('resultList' in wf.tasks[0].outputData);

        const unknown = await call(s.t().app, 'POST', `/api/workflow/${id}/rerun`, {
          reRunFromTaskId: 'nope',
        });
        assert.equal(unknown.status, 400, unknown.text);
        assert.equal(unknown.body.validationErrors[0].path, 'body.reRunFromTaskId');
      });
    });

    describe('LambdaAndTerminateTaskSpec', () => {
      it('a TERMINATE with status COMPLETED ends the run with its output', async () => {
        const id = await s.start('cs_terminate_completed', { a: 1 });
        const wf = await s.run(id);
        assert.equal(wf.status, 'COMPLETED');
        assert.deepEqual(shape(wf), [
          ['LAMBDA', 'COMPLETED'],
          ['TERMINATE', 'COMPLETED'],
        ]);
        assert.deepEqual(
          wf.tasks.map((task: any) => task.seq),
          [1, 2],
        );
        assert.match(wf.reasonForIncompletion, /Workflow is COMPLETED by TERMINATE task/);
        assert.deepEqual(wf.output, { result: { testvalue: true } });
      });

      it('a TERMINATE with status FAILED fails the run and starts its failure workflow', async () => {
        const id = await s.start('cs_terminate_failed', { a: 1 });
        const wf = await s.run(id);
        assert.equal(wf.status, 'FAILED');
        assert.deepEqual(shape(wf), [
          ['LAMBDA', 'COMPLETED'],
          ['TERMINATE', 'COMPLETED'],
        ]);
        assert.equal(wf.reasonForIncompletion, `Workflow is FAILED by TERMINATE task: ${wf.tasks[1].taskId}`);
        const failureId = wf.output['conductor.failure_workflow'];
        assert.equal(typeof failureId, 'string');
        const failure = await s.until(failureId, ['COMPLETED']);
        assert.equal(failure.status, 'COMPLETED');
        assert.equal(failure.workflowName ?? failure.workflowType, 'cs_failure');
        assert.equal(failure.input.workflowId, id);
        assert.deepEqual(shape(failure), [['LAMBDA', 'COMPLETED']]);
      });

      it('a LAMBDA answers its script value as result', async () => {
        const id = await s.start('cs_lambda', { a: 1 });
        const wf = await s.run(id);
        assert.equal(wf.status, 'COMPLETED');
        assert.deepEqual(shape(wf), [['LAMBDA', 'COMPLETED']]);
        assert.equal(wf.tasks[0].seq, 1);
        assert.deepEqual(wf.tasks[0].outputData, { result: { testvalue: true } });
      });

      it('a TERMINATE in a decision case fails the run; a string output is wrapped', async () => {
        const id = await s.start('cs_decision_terminate', { param1: 'p1', param2: 'p2', case: 'two' });
        let wf = await s.run(id);
        assert.equal(wf.status, 'RUNNING');
        assert.deepEqual(shape(wf), [['cs_task_1', 'SCHEDULED']]);
        assert.equal(wf.tasks[0].seq, 1);
        await s.complete('cs_task_1', { op: 'task1 completed' });
        wf = await s.run(id);
        assert.equal(wf.status, 'FAILED');
        assert.deepEqual(shape(wf), [
          ['cs_task_1', 'COMPLETED'],
          ['DECISION', 'COMPLETED'],
          ['TERMINATE', 'COMPLETED'],
        ]);
        assert.deepEqual(
          wf.tasks.map((task: any) => task.seq),
          [1, 2, 3],
        );
        assert.equal(wf.tasks[0].outputData.op, 'task1 completed');
        // A workflowOutput that is not a map is wrapped as {output: value}.
        assert.deepEqual(wf.output, { output: 'task1 completed' });
        assert.match(wf.reasonForIncompletion, /Workflow is FAILED by TERMINATE task/);
      });

      it('a TERMINATE in a fork branch ends the run and terminates its child run', async () => {
        const id = await s.start('cs_terminate_parent', { a: 1 });
        let wf = await s.run(id);
        assert.equal(wf.status, 'RUNNING');
        // SUB_WORKFLOW is IN_PROGRESS at once: Baton starts the child in the same step
        // (Conductor shows it SCHEDULED until its system-task worker starts the child).
        assert.deepEqual(shape(wf), [
          ['FORK', 'COMPLETED'],
          ['LAMBDA', 'COMPLETED'],
          ['LAMBDA', 'COMPLETED'],
          ['JOIN', 'IN_PROGRESS'],
          ['SUB_WORKFLOW', 'IN_PROGRESS'],
          ['WAIT', 'IN_PROGRESS'],
        ]);
        assert.deepEqual(
          wf.tasks.map((task: any) => task.seq),
          [1, 2, 3, 4, 5, 6],
        );
        assert.equal(wf.tasks[1].referenceTaskName, 'lambdaA');
        assert.equal(wf.tasks[2].referenceTaskName, 'lambdaB');
        const childId = wf.tasks.find((task: any) => task.referenceTaskName === 'child').subWorkflowId;
        s.track(childId);
        let child = await s.run(childId);
        assert.equal(child.status, 'RUNNING');
        assert.deepEqual(shape(child), [['WAIT', 'IN_PROGRESS']]);

        await s.completeById(id, wf.tasks[5].taskId);
        wf = await s.run(id);
        assert.equal(wf.status, 'COMPLETED');
        assert.match(wf.reasonForIncompletion, /Workflow is COMPLETED by TERMINATE task/);
        assert.deepEqual(shape(wf), [
          ['FORK', 'COMPLETED'],
          ['LAMBDA', 'COMPLETED'],
          ['LAMBDA', 'COMPLETED'],
          ['JOIN', 'CANCELED'],
          ['SUB_WORKFLOW', 'CANCELED'],
          ['WAIT', 'COMPLETED'],
          ['TERMINATE', 'COMPLETED'],
        ]);
        assert.equal(wf.tasks[6].seq, 7);
        assert.deepEqual(wf.output, { output: 'some output' });

        child = await s.until(childId, ['TERMINATED']);
        assert.equal(child.status, 'TERMINATED');
        assert.deepEqual(shape(child), [['WAIT', 'CANCELED']]);
        assert.match(
          child.reasonForIncompletion,
          /Parent workflow has been terminated with reason: Workflow is COMPLETED by TERMINATE task/,
        );
      });
    });

    describe('FailureWorkflowSpec', () => {
      it('the failure workflow gets the run id, the TERMINATE task id and the correlation id', async () => {
        const id = await s.start('cs_terminate_failed', { a: 1 }, 'testId');
        const wf = await s.run(id);
        assert.equal(wf.status, 'FAILED');
        assert.deepEqual(shape(wf), [
          ['LAMBDA', 'COMPLETED'],
          ['TERMINATE', 'COMPLETED'],
        ]);
        const failure = await s.until(wf.output['conductor.failure_workflow'], ['COMPLETED']);
        assert.equal(failure.status, 'COMPLETED');
        assert.equal(failure.correlationId, 'testId');
        assert.equal(failure.input.workflowId, id);
        assert.equal(failure.input.failureTaskId, wf.tasks[1].taskId);
        assert.deepEqual(shape(failure), [['LAMBDA', 'COMPLETED']]);
      });

      it('a child run failed by a TERMINATE fails the parent, whose failure workflow names the task', async () => {
        const id = await s.start('cs_failed_parent', { a: 1 });
        // Baton starts the child in the same step as the SUB_WORKFLOW task (Conductor shows it
        // SCHEDULED first), so the parent is already past that point.
        const wf = await s.until(id, ['FAILED']);
        const subTask = wf.tasks.find((task: any) => task.referenceTaskName === 'failing_child');
        const child = await s.run(subTask.subWorkflowId ?? subTask.outputData.subWorkflowId);
        assert.equal(child.status, 'FAILED');
        assert.deepEqual(shape(child), [
          ['LAMBDA', 'COMPLETED'],
          ['TERMINATE', 'COMPLETED'],
        ]);
        assert.match(child.reasonForIncompletion, /Workflow is FAILED by TERMINATE task/);

        assert.equal(wf.status, 'FAILED');
        assert.deepEqual(shape(wf), [
          ['LAMBDA', 'COMPLETED'],
          ['SUB_WORKFLOW', 'FAILED'],
        ]);
        assert.equal(wf.tasks[0].referenceTaskName, 'lambdaA');
        assert.deepEqual(
          wf.tasks.map((task: any) => task.seq),
          [1, 2],
        );
        const failure = await s.until(wf.output['conductor.failure_workflow'], ['COMPLETED']);
        assert.equal(failure.status, 'COMPLETED');
        assert.equal(failure.correlationId, wf.correlationId);
        assert.equal(failure.input.workflowId, id);
        assert.equal(failure.input.failureTaskId, wf.tasks[1].taskId);
        assert.deepEqual(shape(failure), [['LAMBDA', 'COMPLETED']]);
      });
    });

    describe('SetVariableTaskSpec', () => {
      it('a SET_VARIABLE sets the run variable', async () => {
        const id = await s.start('cs_set_variable', { var: 'var_test_value' });
        const wf = await s.run(id);
        assert.equal(wf.status, 'COMPLETED');
        assert.deepEqual(shape(wf), [['SET_VARIABLE', 'COMPLETED']]);
        assert.deepEqual(wf.variables, { var: 'var_test_value' });
        assert.deepEqual(wf.output, { variables: { var: 'var_test_value' } });
      });

      it('variables above the size limit fail the task with a terminal error and are not kept', async () => {
        // Conductor's spec lowers the limit to 2 KB; Baton's is Conductor's default, 256 KB. The
        // same arithmetic: one 8-character chunk over the limit, plus `{"var":""}` around it.
        const limitKb = 256;
        const value = '01234567'.repeat(1 + (limitKb * 1024) / 8);
        const id = await s.start('cs_set_variable', { var: value });
        const wf = await s.run(id);
        const size = 10 + limitKb * 1024 + 8;
        assert.equal(wf.status, 'FAILED');
        assert.deepEqual(shape(wf), [['SET_VARIABLE', 'FAILED_WITH_TERMINAL_ERROR']]);
        assert.equal(
          wf.tasks[0].reasonForIncompletion,
          `The variables payload size: ${size} of workflow: ${id} is greater than the permissible limit: ${limitKb} kilobytes`,
        );
        assert.deepEqual(wf.variables, {});
        assert.deepEqual(wf.output, { variables: {} });
      });
    });

    describe('WaitTaskSpec', () => {
      it('a WAIT completed through the result route lets the next worker run', async () => {
        const id = await s.start('cs_wait', {});
        let wf = await s.run(id);
        assert.equal(wf.status, 'RUNNING');
        assert.deepEqual(shape(wf), [['WAIT', 'IN_PROGRESS']]);
        await s.completeById(id, wf.tasks[0].taskId);
        wf = await s.run(id);
        assert.equal(wf.status, 'RUNNING');
        assert.deepEqual(shape(wf), [
          ['WAIT', 'COMPLETED'],
          ['cs_task_1', 'SCHEDULED'],
        ]);
        await s.complete('cs_task_1');
        wf = await s.run(id);
        assert.equal(wf.status, 'COMPLETED');
        assert.deepEqual(shape(wf), [
          ['WAIT', 'COMPLETED'],
          ['cs_task_1', 'COMPLETED'],
        ]);
      });
    });

    describe('SubWorkflowSpec', () => {
      /** Starts the parent and completes its first worker; answers the parent and child ids. */
      async function childStarted(): Promise<{ id: string; childId: string }> {
        const id = await s.start(
          'cs_sub_parent',
          { param1: 'p1 value', param2: 'p2 value' },
          'wf_with_subwf_test_1',
        );
        let wf = await s.run(id);
        assert.equal(wf.status, 'RUNNING');
        assert.deepEqual(shape(wf), [['cs_task_1', 'SCHEDULED']]);
        await s.complete('cs_task_1', { op: 'task1.done' });
        // SUB_WORKFLOW is IN_PROGRESS at once: Baton starts the child in the same step
        // (Conductor shows it SCHEDULED until its system-task worker starts the child).
        wf = await s.run(id);
        assert.equal(wf.status, 'RUNNING');
        assert.deepEqual(shape(wf), [
          ['cs_task_1', 'COMPLETED'],
          ['SUB_WORKFLOW', 'IN_PROGRESS'],
        ]);
        const childId = wf.tasks[1].subWorkflowId;
        assert.equal(typeof childId, 'string');
        s.track(childId);
        const child = await s.run(childId);
        assert.equal(child.status, 'RUNNING');
        assert.equal(child.parentWorkflowId, id);
        assert.deepEqual(shape(child), [['cs_child_task', 'SCHEDULED']]);
        return { id, childId };
      }

      it('the child completes and the parent completes with its output', async () => {
        const { id, childId } = await childStarted();
        await s.complete('cs_child_task', { op: 'child.done' });
        const child = await s.until(childId, ['COMPLETED']);
        assert.deepEqual(shape(child), [['cs_child_task', 'COMPLETED']]);
        const wf = await s.until(id, ['COMPLETED']);
        assert.equal(wf.status, 'COMPLETED');
        assert.deepEqual(shape(wf), [
          ['cs_task_1', 'COMPLETED'],
          ['SUB_WORKFLOW', 'COMPLETED'],
        ]);
        assert.equal(wf.output.op, 'child.done');
      });

      it('terminating the child terminates the parent', async () => {
        const { id, childId } = await childStarted();
        const reason = 'terminating from a test case';
        const res = await call(
          s.t().app,
          'DELETE',
          `/api/workflow/${childId}?reason=${encodeURIComponent(reason)}`,
        );
        assert.equal(res.status, 200, res.text);
        const child = await s.run(childId);
        assert.equal(child.status, 'TERMINATED');
        assert.deepEqual(shape(child), [['cs_child_task', 'CANCELED']]);
        assert.equal(child.reasonForIncompletion, reason);
        const wf = await s.until(id, ['TERMINATED', 'FAILED', 'COMPLETED']);
        assert.equal(wf.status, 'TERMINATED');
        assert.deepEqual(shape(wf), [
          ['cs_task_1', 'COMPLETED'],
          ['SUB_WORKFLOW', 'CANCELED'],
        ]);
        // Conductor's spec expects the child's reason itself; Baton ends the parent through the
        // CANCELED task, in the words of Conductor's DeciderService, which carry the child's reason.
        assert.ok(wf.reasonForIncompletion.includes(reason), wf.reasonForIncompletion);
      });
    });

    describe('StartWorkflowSpec', () => {
      const cases: Array<[string, Record<string, unknown>]> = [
        ['name and version', { name: 'cs_sub_child', input: { param1: 'value1', param2: 'value2' } }],
        [
          'a workflow definition',
          {
            name: 'cs_inline_started',
            workflowDef: {
              ...workflowDef('cs_inline_started', [
                worker('cs_task_1', 'first', { tp1: '${workflow.input.param1}', tp3: '${CPEWF_TASK_ID}' }),
                worker('cs_task_2', 'second', { tp2: '${first.output.op}', tp3: '${CPEWF_TASK_ID}' }),
              ]),
              version: 1,
            },
          },
        ],
      ];
      for (const [how, startWorkflow] of cases) {
        it(`a START_WORKFLOW starts another run by ${how}`, async () => {
          const correlationId = `start-${how}`;
          const id = await s.start('cs_start_another', { startWorkflow }, correlationId);
          const wf = await s.until(id, ['COMPLETED', 'FAILED']);
          assert.equal(wf.status, 'COMPLETED', wf.reasonForIncompletion);
          assert.deepEqual(shape(wf), [['START_WORKFLOW', 'COMPLETED']]);
          const startedId = wf.tasks[0].outputData.workflowId;
          assert.equal(typeof startedId, 'string');
          s.track(startedId);
          const started = await s.run(startedId);
          assert.equal(started.status, 'RUNNING');
          assert.equal(started.correlationId, correlationId);
          assert.notEqual(started.input, undefined);
        });
      }

      it('an input without a start request fails the task', async () => {
        const id = await s.start('cs_start_another', {
          start_workflow: { param1: 'value1', param2: 'value2' },
        });
        const wf = await s.until(id, ['FAILED', 'COMPLETED']);
        assert.equal(wf.status, 'FAILED');
        assert.deepEqual(shape(wf), [['START_WORKFLOW', 'FAILED']]);
        assert.equal(wf.tasks[0].reasonForIncompletion, "Missing 'startWorkflow' in input data.");
      });
    });
  });
}
