import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { TaskRecord } from '@baton/protocol';

import { jsonEqual, judgeResult, type PostedResult } from '../../src/engine/result-acceptance.js';
import { Engine, simple, workflow } from './helpers.js';

/** A task record as the engine makes it, with the given fields. */
function taskWith(fields: Partial<TaskRecord>): TaskRecord {
  const engine = new Engine(workflow([simple('a')]));
  engine.start();
  return { ...engine.task('a'), ...fields };
}

describe('judgeResult: which results are applied, repeated or refused', () => {
  const completed = taskWith({
    status: 'COMPLETED',
    workerId: 'w1',
    outputData: { n: 1, o: { a: 1, b: [1, 2] } },
  });

  it('an exact repeat of the recorded result: same status, same output (key order aside), same worker', () => {
    assert.equal(
      judgeResult(completed, {
        status: 'COMPLETED',
        outputData: { o: { b: [1, 2], a: 1 }, n: 1 },
        workerId: 'w1',
      }).kind,
      'repeat',
    );
    assert.equal(
      judgeResult(completed, { status: 'COMPLETED' }).kind,
      'repeat',
      'no output asks to change none',
    );
    assert.equal(
      judgeResult(completed, {
        status: 'COMPLETED',
        outputData: { n: 1, o: { a: 1, b: [1, 2] } },
        workerId: '',
      }).kind,
      'repeat',
    );
  });

  it('anything else for an ended attempt is refused, naming its status', () => {
    const refused: PostedResult[] = [
      { status: 'FAILED' as const, outputData: { n: 1, o: { a: 1, b: [1, 2] } } },
      { status: 'COMPLETED' as const, outputData: { n: 1 } },
      { status: 'COMPLETED' as const, outputData: { n: 1, o: { a: 1, b: [2, 1] } } },
      { status: 'COMPLETED' as const, outputData: { n: 1, o: { a: 1, b: [1, 2] } }, workerId: 'w2' },
      { status: 'IN_PROGRESS' as const },
    ];
    for (const posted of refused) {
      const verdict = judgeResult(completed, posted);
      assert.equal(verdict.kind, 'refuse', JSON.stringify(posted));
      assert.ok(verdict.kind === 'refuse' && verdict.reason === 'ended' && verdict.status === 'COMPLETED');
      assert.match(
        verdict.kind === 'refuse' ? verdict.message : '',
        /\(a\) is COMPLETED: this attempt has ended/,
      );
    }
  });

  it('the holder of an attempt its response timeout ended reports late: refused as lapsed; others as ended', () => {
    const timedOut = taskWith({ status: 'TIMED_OUT', workerId: 'w1' });
    const own = judgeResult(timedOut, { status: 'COMPLETED', workerId: 'w1' });
    assert.ok(own.kind === 'refuse' && own.reason === 'lapsed');
    const other = judgeResult(timedOut, { status: 'COMPLETED', workerId: 'w2' });
    assert.ok(other.kind === 'refuse' && other.reason === 'ended');
    const unnamed = judgeResult(timedOut, { status: 'COMPLETED' });
    assert.ok(unnamed.kind === 'refuse' && unnamed.reason === 'ended');
    const canceled = judgeResult(taskWith({ status: 'CANCELED', workerId: 'w1' }), {
      status: 'COMPLETED',
      workerId: 'w1',
    });
    assert.ok(canceled.kind === 'refuse' && canceled.reason === 'ended');
  });

  it('a merged output (completion by name) repeats when every posted key holds its recorded value', () => {
    assert.equal(judgeResult(completed, { status: 'COMPLETED', outputData: { n: 1 } }, true).kind, 'repeat');
    assert.equal(judgeResult(completed, { status: 'COMPLETED', outputData: { n: 2 } }, true).kind, 'refuse');
  });

  it('a task held under a hand-out refuses another named worker; the holder and an unnamed caller apply', () => {
    const held = taskWith({ status: 'IN_PROGRESS', workerId: 'holder' });
    const other = judgeResult(held, { status: 'COMPLETED', workerId: 'other' });
    assert.ok(other.kind === 'refuse' && other.reason === 'held');
    assert.match(
      other.kind === 'refuse' ? other.message : '',
      /is IN_PROGRESS and held by worker holder: the result of worker other/,
    );
    assert.equal(judgeResult(held, { status: 'COMPLETED', workerId: 'holder' }).kind, 'apply');
    assert.equal(judgeResult(held, { status: 'COMPLETED' }).kind, 'apply');
    // Off its queue (HUMAN, WAIT, asyncComplete) or back on it (a callback): nobody holds it.
    assert.equal(
      judgeResult({ ...held, queueName: undefined }, { status: 'COMPLETED', workerId: 'x' }).kind,
      'apply',
    );
    assert.equal(
      judgeResult({ ...held, status: 'SCHEDULED' }, { status: 'COMPLETED', workerId: 'x' }).kind,
      'apply',
    );
  });

  it('jsonEqual: objects by keys, arrays in order, scalars by value', () => {
    assert.ok(jsonEqual({ a: [1, { b: null }] }, { a: [1, { b: null }] }));
    assert.ok(!jsonEqual({ a: 1 }, { a: 1, b: 2 }));
    assert.ok(!jsonEqual([1, 2], [2, 1]));
    assert.ok(!jsonEqual('1', 1));
    assert.ok(!jsonEqual(null, {}));
  });
});
