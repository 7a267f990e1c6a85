import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import fc from 'fast-check';

import { jsonShapeProblem, textProblem, withinDepth } from '../../src/bounds/json-shape.js';
import {
  MAX_DELAY_MS,
  MAX_JSON_DEPTH,
  MAX_TIME_MS,
  boundedPriority,
  isStorableVersion,
} from '../../src/bounds/ranges.js';
import { addDelay, boundedDelayMs, isoOrUnknown, storableTime } from '../../src/bounds/time.js';
import { isOriginFormTarget, isSaneHost } from '../../src/http/request-target.js';

function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

void describe('bounds: JSON shape', () => {
  void it('measures depth without recursion and names where the limit is crossed', () => {
    assert.equal(jsonShapeProblem(nested(MAX_JSON_DEPTH)), undefined);
    const problem = jsonShapeProblem(nested(MAX_JSON_DEPTH + 1));
    assert.ok(problem);
    assert.equal(problem.path, `body${'.a'.repeat(MAX_JSON_DEPTH)}`);
    assert.match(problem.message, /deeper than 128 levels/);
    // 100,000 deep is measured as safely as 10.
    assert.ok(jsonShapeProblem(nested(100_000)));
    assert.equal(withinDepth(nested(100_000)), false);
    assert.equal(withinDepth(nested(10)), true);
  });

  void it('bounds the number of values and refuses text no store holds, in values and keys', () => {
    assert.match(
      jsonShapeProblem(new Array(20).fill(0), 'body', { maxDepth: 5, maxNodes: 10 })?.message ?? '',
      /more than 10 values/,
    );
    assert.deepEqual(jsonShapeProblem({ list: ['ok', 'a\u0000b'] }), {
      path: 'body.list[1]',
      message: 'contains a NUL character',
    });
    assert.deepEqual(jsonShapeProblem({ 'odd key': { x: '\uD800' } }), {
      path: 'body["odd key"].x',
      message: 'contains an unpaired UTF-16 surrogate',
    });
    assert.match(jsonShapeProblem({ 'a\u0000': 1 })?.message ?? '', /key that contains a NUL/);
    assert.equal(textProblem('😀 paired surrogates are fine'), undefined);
  });

  void it('accepts every JSON value within the limits (property, fixed seed)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 10 }), (value) => {
        assert.equal(jsonShapeProblem(value), undefined);
      }),
      { seed: 20261125, numRuns: 300 },
    );
  });
});

void describe('bounds: times and numbers', () => {
  void it('clamps derived times to what the stores hold and formats any value without throwing', () => {
    assert.equal(storableTime(Number.NaN), 0);
    assert.equal(storableTime(-5), 0);
    assert.equal(storableTime(1e308), MAX_TIME_MS);
    assert.equal(storableTime(12.7), 12);
    assert.equal(boundedDelayMs(Number.POSITIVE_INFINITY), MAX_DELAY_MS);
    assert.equal(addDelay(1000, 1e308), 1000 + MAX_DELAY_MS);
    assert.equal(isoOrUnknown(2 ** 53 * 1000), 'unknown');
    assert.equal(isoOrUnknown(Number.NaN), 'unknown');
    assert.equal(isoOrUnknown(0), '1970-01-01T00:00:00.000Z');
    assert.doesNotThrow(() => new Date(MAX_TIME_MS).toISOString());
  });

  void it('knows storable versions and bounded priorities', () => {
    assert.equal(isStorableVersion(2 ** 31 - 1), true);
    assert.equal(isStorableVersion(2 ** 31), false);
    assert.equal(isStorableVersion(1.5), false);
    assert.equal(boundedPriority(1e308), 99);
    assert.equal(boundedPriority(-3), 0);
    assert.equal(boundedPriority(Number.NaN), 0);
  });
});

void describe('bounds: request targets and hosts', () => {
  void it('takes origin-form targets and host names only', () => {
    for (const target of ['/api/workflow', '/health?x=1', '/'])
      assert.equal(isOriginFormTarget(target), true, target);
    for (const target of ['http://other.host/api', '*', '//other.host/api', 'api/workflow', '']) {
      assert.equal(isOriginFormTarget(target), false, target);
    }
    for (const host of ['localhost', '127.0.0.1:8080', 'baton.example.com', '[::1]:80', undefined]) {
      assert.equal(isSaneHost(host), true, String(host));
    }
    for (const host of [
      '',
      'a b',
      'evil.com/x',
      'user@evil.com',
      'evil.com:80:80',
      '[::1',
      'x'.repeat(300),
    ]) {
      assert.equal(isSaneHost(host), false, host);
    }
  });
});
