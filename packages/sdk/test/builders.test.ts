import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { TASK_KIND_INFO, type JsonValue, type WorkflowTask } from '@baton/protocol';

import * as builders from '../src/definitions.js';

/** The parameter names of a compiled function, in order (defaults dropped). */
function parameterNames(fn: (...args: never[]) => unknown): string[] {
  const source = fn.toString();
  const open = source.indexOf('(');
  let depth = 0;
  let end = open;
  for (let i = open; i < source.length; i++) {
    const c = source[i];
    if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') depth--;
    if (depth === 0) {
      end = i;
      break;
    }
  }
  const names: string[] = [];
  let current = '';
  depth = 0;
  for (const c of source.slice(open + 1, end)) {
    if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') depth--;
    if (c === ',' && depth === 0) {
      names.push(current);
      current = '';
    } else current += c;
  }
  if (current.trim() !== '') names.push(current);
  return names.map((p) => p.split('=')[0]!.trim());
}

/** A value for each builder parameter name protocol lists (`type` is the kind built). */
function sample(param: string, kind: string): JsonValue {
  const values: Record<string, JsonValue> = {
    ref: 'r',
    name: 'w',
    taskName: 'w',
    forkTaskName: 'w',
    inputParameters: {},
    extra: {},
    input: {},
    variables: {},
    http_request: { uri: 'http://example.test', method: 'GET' },
    expression: '${workflow.input.x}',
    caseValueParam: 'c',
    decisionCases: {},
    defaultCase: [],
    branches: [[]],
    loopCondition: 'false',
    loopOver: [],
    forkTaskInputs: [],
    joinOn: [],
    defaultExclusiveJoinTask: [],
    status: 'COMPLETED',
    reason: 'done',
    version: 1,
    sink: 'baton:orders',
    duration: '1 second',
    assignee: 'someone',
    scriptExpression: 'return 1;',
    queryExpression: '.',
  };
  if (param === 'type') return kind;
  const value = values[param];
  assert.ok(value !== undefined, `no sample for builder parameter ${param}`);
  return value;
}

// protocol's TASK_KIND_INFO names the SDK builder of every kind the server runs (the server's
// suite checks each registered kind names one); here each named builder must exist, take the
// listed parameters and build a node of its kind.
void describe('SDK builders named by protocol', () => {
  for (const [kind, info] of Object.entries(TASK_KIND_INFO)) {
    if (!info.builder) continue;
    const { name, params } = info.builder;
    it(`${kind}: ${name}(${params.join(', ')})`, () => {
      const builder: unknown = (builders as Record<string, unknown>)[name];
      assert.equal(typeof builder, 'function', `the SDK has no builder ${name}`);
      const fn = builder as (...args: JsonValue[]) => WorkflowTask | WorkflowTask[];
      assert.deepEqual(parameterNames(fn), params);
      const built = fn(...params.map((p) => sample(p, kind)));
      const node = Array.isArray(built) ? built[0] : built;
      assert.equal(node?.type, kind);
      assert.equal(node?.taskReferenceName, 'r');
    });
  }
});
