import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { BatonError } from '../../src/errors.js';
import { filterFromQuery } from '../../src/search/query-filter.js';
import { QuerySyntaxError, parseQuery } from '../../src/search/query-parser.js';
import { RUN_FIELDS, TASK_FIELDS } from '../../src/search/search-fields.js';

function syntaxErrorAt(text: string): number {
  try {
    parseQuery(text);
  } catch (err) {
    assert.ok(err instanceof QuerySyntaxError, String(err));
    return err.position;
  }
  assert.fail(`expected a syntax error in ${text}`);
}

describe('query parser', () => {
  it("parses Conductor's task query form", () => {
    assert.deepEqual(
      parseQuery('taskType IN (a,b) AND status IN (COMPLETED) AND startTime > 1700000000000'),
      {
        kind: 'and',
        items: [
          { kind: 'in', field: 'taskType', values: ['a', 'b'], negate: false, position: 1 },
          { kind: 'in', field: 'status', values: ['COMPLETED'], negate: false, position: 23 },
          { kind: 'compare', field: 'startTime', op: '>', value: '1700000000000', position: 49 },
        ],
      },
    );
  });

  it('takes quotes, escapes, every operator, NOT IN, OR, parentheses and keywords in any case', () => {
    assert.deepEqual(parseQuery(`workflowId = "a b" or (x != 'it\\'s' and y not in (1, 2))`), {
      kind: 'or',
      items: [
        { kind: 'compare', field: 'workflowId', op: '=', value: 'a b', position: 1 },
        {
          kind: 'and',
          items: [
            { kind: 'compare', field: 'x', op: '!=', value: "it's", position: 24 },
            { kind: 'in', field: 'y', values: ['1', '2'], negate: true, position: 41 },
          ],
        },
      ],
    });
    for (const [op, want] of [
      ['=', '='],
      ['==', '='],
      [':', '='],
      ['<>', '!='],
      ['>=', '>='],
      ['<=', '<='],
      ['<', '<'],
    ] as const) {
      assert.deepEqual(parseQuery(`t ${op} 5`), {
        kind: 'compare',
        field: 't',
        op: want,
        value: '5',
        position: 1,
      });
    }
    assert.deepEqual(parseQuery('taskType=my-task_1.v2'), {
      kind: 'compare',
      field: 'taskType',
      op: '=',
      value: 'my-task_1.v2',
      position: 1,
    });
  });

  it('names the position of a syntax error', () => {
    assert.equal(syntaxErrorAt('taskType IN (a,b'), 17);
    assert.equal(syntaxErrorAt('taskType IN a'), 13);
    assert.equal(syntaxErrorAt('status = COMPLETED AND'), 23);
    assert.equal(syntaxErrorAt('status COMPLETED'), 8);
    assert.equal(syntaxErrorAt('(a = 1'), 7);
    assert.equal(syntaxErrorAt('a = 1 b = 2'), 7);
    assert.equal(syntaxErrorAt('a = "open'), 5);
    assert.equal(syntaxErrorAt(''), 1);
    assert.equal(syntaxErrorAt('a = ,'), 5);
    assert.equal(syntaxErrorAt('a NOT = 1'), 7);
    assert.equal(syntaxErrorAt(`${'('.repeat(40)}a=1${')'.repeat(40)}`), 33);
  });
});

describe('query filters', () => {
  it('resolves fields and aliases, types the values, and answers 400 naming the problem', () => {
    assert.deepEqual(
      filterFromQuery('workflowName IN (a) AND status = running AND startTime >= 2026-01-01', RUN_FIELDS),
      {
        kind: 'and',
        items: [
          { kind: 'in', field: 'workflowType', values: ['a'], negate: false },
          { kind: 'compare', field: 'status', op: '=', value: 'RUNNING' },
          { kind: 'compare', field: 'startTime', op: '>=', value: Date.UTC(2026, 0, 1) },
        ],
      },
    );
    const bad = (text: string, pattern: RegExp): void => {
      assert.throws(
        () => filterFromQuery(text, TASK_FIELDS),
        (err: unknown) => {
          assert.ok(err instanceof BatonError);
          assert.equal(err.status, 400);
          assert.match(err.message, pattern);
          assert.equal(err.validationErrors?.[0]?.path, 'querystring.query');
          return true;
        },
      );
    };
    bad('color = red', /unknown field 'color' at position 1/);
    bad('taskType = a AND status IN (DONE)', /field 'status' at position 18 takes one of/);
    bad('startTime > yesterday', /epoch milliseconds or an ISO-8601 date/);
    bad('taskType > a', /only takes =, != and IN/);
    bad('taskType IN (a', /^query: syntax error at position 15: expected ',' or '\)'/);
  });
});
