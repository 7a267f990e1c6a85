import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { jacksonJqRewrite } from '../../src/engine/kinds/jq-dialect.js';

/** Filters written for Conductor's jackson-jq, rewritten for real jq (JsonJQTransformSpec's idioms). */
void describe('jackson-jq object values rewritten for jq', () => {
  const cases: [string, string | undefined][] = [
    ['{a: .x // "y"}', '{a: (.x // "y")}'],
    ['{a: .x + 1, b: .y}', '{a: (.x + 1), b: .y}'],
    ['{a: {b: .x == 1}, c: 2}', '{a: {b: (.x == 1)}, c: 2}'],
    ['{a: if .x then 1 else 2 end}', '{a: (if .x then 1 else 2 end)}'],
    ['{"k": .x as $v | $v}', '{"k": (.x as $v | $v)}'],
    ['{a: .x and .y}', '{a: (.x and .y)}'],
    ['{user: .u, total: .a + .b} | .total', '{user: .u, total: (.a + .b)} | .total'],
    // What jq takes already is left alone.
    ['{a: .x | length}', undefined],
    ['{a: -.x}', undefined],
    ['{(.k): .v}', undefined],
    ['.x | {a: .l[1:2]}', undefined],
    ['{a: "s: \\(.x // 1)"}', undefined],
    ['[.[] | {n: .name, v: (.v // 0)}]', undefined],
  ];
  for (const [filter, expected] of cases) {
    void it(filter, () => assert.equal(jacksonJqRewrite(filter), expected));
  }
});
