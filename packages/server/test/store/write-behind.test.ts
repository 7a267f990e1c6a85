import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { inline, literal } from '../../src/store/postgres/write-behind.js';

void describe('deferred writes as SQL literals', () => {
  void it('quotes strings, numbers, booleans, nulls and arrays the way PostgreSQL reads them', () => {
    assert.equal(literal(null), 'NULL');
    assert.equal(literal(undefined), 'NULL');
    assert.equal(literal(42), '42');
    assert.equal(literal(-1.5), '-1.5');
    assert.equal(literal(true), 'TRUE');
    assert.equal(literal("it's"), "'it''s'");
    assert.equal(literal('a\\b'), " E'a\\\\b'");
    assert.equal(literal(['a', null, 'b"c', 'd,e']), ` E'{"a",NULL,"b\\\\"c","d,e"}'`);
    assert.equal(literal([1, 2]), `'{1,2}'`);
    assert.equal(literal([]), `'{}'`);
    assert.throws(() => literal(Number.NaN), /NaN/);
    assert.throws(() => literal({ a: 1 }), /object/);
  });

  void it('replaces each placeholder once, $10 apart from $1, and never inside an inserted value', () => {
    const values = Array.from({ length: 10 }, (_, i) => `v${i + 1}`);
    values[0] = '$2';
    assert.equal(inline('SELECT $1, $2, $10::text', values), `SELECT '$2', 'v2', 'v10'::text`);
  });
});
