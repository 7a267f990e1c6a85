import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { ControlFlowError } from '../../src/control-flow-error.js';

class Steer extends ControlFlowError {
  constructor(readonly key: string) {
    super(`steered by ${key}`);
  }
}

describe('ControlFlowError', () => {
  it('is an Error of its own class, with its message and fields, and no stack frames', () => {
    const e = new Steer('run:1');
    assert.ok(e instanceof Error);
    assert.ok(e instanceof ControlFlowError);
    assert.ok(e instanceof Steer);
    assert.equal(e.key, 'run:1');
    assert.equal(e.message, 'steered by run:1');
    assert.doesNotMatch(e.stack ?? '', /\n\s+at /, 'no frame recorded');
  });

  it('leaves the stack limit as it was, so other errors keep their stacks', () => {
    const before = Error.stackTraceLimit;
    new Steer('x');
    assert.equal(Error.stackTraceLimit, before);
    assert.match(new Error('plain').stack ?? '', /\n\s+at /);
  });
});
