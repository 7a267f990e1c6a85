import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';

import type { JsonValue } from '@baton/protocol';

import { JavaScriptSandbox } from '../../src/scripting/javascript-sandbox.js';
import { scriptLimits } from '../../src/scripting/limits.js';
import { simpleJavascript } from '../../src/scripting/simple-expression.js';

/** The sandbox is the reference: every answer given here must be the one it gives. */
const limits = scriptLimits(16, 600_000);
let sandbox: JavaScriptSandbox;
before(async () => {
  sandbox = await JavaScriptSandbox.load(limits);
});

const INPUT = {
  run: 7,
  even: 8,
  zero: 0,
  half: 0.5,
  big: 1e21,
  neg: -3,
  s: 'abc',
  empty: '',
  num: '12',
  t: true,
  f: false,
  n: null,
  list: [1, 'two', { three: 3 }, null, [5]],
  obj: { a: { b: 'deep' }, status: 'ok', count: 4, length: 9, __proto__x: 1 },
  'odd key': 'spaced',
  words: ['a', 'b', 'c'],
  floats: [1.5, 2],
  uni: 'Ünïcødé ß',
  mixed: 'MiXeD Case 42',
  withGet: { get: 1, a: 2 },
  items: [
    { id: 'a', qty: 2, ok: true },
    { id: 'b', qty: 5, ok: false },
    { id: 'c', qty: 1, ok: true },
  ],
} satisfies JsonValue;

/** Answered here, exactly as the sandbox answers them. */
const SIMPLE = [
  '$.run % 2 === 0 ? "even" : "odd"',
  '$.even % 2 === 0 ? "even" : "odd";',
  "  $.obj.status == 'ok' && $.obj.count > 3  ",
  '$.obj.a.b',
  "$['odd key']",
  '$.list[2].three + $.list.length',
  '$.list[4][0]',
  '$.list[9]',
  '$.missing',
  '$.missing === undefined',
  '$.obj.length',
  '$.s.length + $.s[1]',
  '$.num == 12',
  '$.num === 12',
  '$.num * 2',
  '$.num + 1',
  "1 + '2'",
  '$.half + $.half',
  '0.1 + 0.2',
  '$.zero || "default"',
  '$.zero ?? "default"',
  '$.n ?? $.s',
  '!$.t',
  '!!$.list',
  '-$.neg',
  '+$.num',
  '-$.s',
  '$.big > 1',
  '$.big * 2',
  '$.s < "abd"',
  'null == undefined',
  'null === undefined',
  '$.n == 0',
  '$.t + 1',
  '$.run / $.zero',
  '-$.zero',
  '$.neg % 2',
  '(1 + 2) * 3',
  '1 + 2 * 3',
  '10 - 3 - 2',
  '$.t ? $.f ? 1 : 2 : 3',
  '$.list',
  '$.obj',
  '$',
  '$.obj.a',
  '$.list[$.zero]',
  '$.list["1"]',
  'undefined',
  '"a\\"b\\n"',
  "'it\\'s'",
  '$.t && $.obj',
  '$.list === $.list',
  '$.obj.a === $.obj.a',
  '$.empty || $.s',
  '$.run > 5 && $.run < 10',
  '$.s + $.run',
  '$.s + $.n',
  'if ($.run > 3) { true; } else { false; }',
  'if ($.run < 3) { true; } else { false; }',
  "if ($.obj.status == 'ok') { 'a' } else if ($.t) { 'b'; } else { 'c'; }",
  "if ($.f) { 'a'; } else if ($.t) { 'b'; } else { 'c'; }",
  'if ($.f) { 1; }',
  'if ($.t) { $.list; };',
  // Functions called at once, as Conductor's INLINE tasks are written, and literals.
  '(function () { return $.run + 1; })()',
  '(function () { return $.run + 1; })();',
  '(function () { return $.run + 1; }())',
  '(function e() { return $.s; })()',
  'function e() { return $.obj.count * 2; } e();',
  'function e() { return $.obj.count * 2; }; e()',
  "(function () { if ($.run > 5) { return 'big'; } return 'small'; })()",
  "(function () { if ($.run > 50) return 'big'; else if ($.run > 5) return 'middle'; return 'small'; })()",
  '(function () { if ($.f) { return 1; } })()',
  '(function () { })()',
  '(function () { return; })()',
  '(function () { ; return 2; ; })()',
  '(function () { if ($.t) { if ($.f) { return 1; } } else { return 2; } return 3; })()',
  '(function () { return { result: $.run % 2 === 0, name: $.s, "odd key": [$.run, $.n, $.t] }; })()',
  'function e() { if ($.obj.status == "ok") { return {"result": true}; } else { return {"result": false}; } } e();',
  '(function () {\n  return {\n    total: $.even + $.run,\n    nested: { deep: [1, [2, { x: 3 }]] },\n  };\n})()',
  '({ a: 1, b: undefined, c: 0 / 0, a: 2 })',
  '[1, undefined, -$.zero, $.s]',
  '[]',
  '({})',
  '({ a: [] }).a',
  '[$.t, $.f][1]',
  '({ length: 2 }).length',
  '({ constructor: 1, toString: "x" })',
  '({ a: 1 }) === ({ a: 1 })',
  '!{}',
  '$.f || { fallback: true }',
  // Declarations: made once where they stand, read after.
  '(function () { const total = $.even * $.run; var tax = total * 0.25; return { total: total, tax: tax }; })()',
  '(function () { let a = $.s + "!"; const b = [a, a]; return { b: b, again: b }; })()',
  '(function () { const x = $.run; if (x > 5) { const y = x * 2; return y; } return -x; })()',
  "(function () { if ($.t) { let inner = 'a'; return inner + $.s; } else { let inner = 'b'; return inner; } })()",
  "function e() {\n  var status = $.obj.status;\n  if (status == 'ok') {\n    return { result: true, count: $.obj.count };\n  }\n  return { result: false };\n}\ne();",
  '(function () { const unused = $.missing; return 1; })()',
  '(function () { const o = $.obj; return o.a.b + o.count; })()',
  '(function () { const l = [1, { two: 2 }]; return l[1].two + l.length; })()',
  '(function () { var x = 1; return x; })()',
  // Built-in calls whose answers ECMAScript defines exactly.
  'Math.max($.run, $.even, $.neg)',
  'Math.min($.run, $.half)',
  'Math.max()',
  'Math.min()',
  'Math.max($.run, 0 / 0)',
  'Math.abs($.neg) + Math.sign($.neg)',
  'Math.floor($.half) + Math.ceil($.half) + Math.round($.half) + Math.trunc(-$.half)',
  'Math.round(-2.5)',
  'Math.round(-0.4)',
  '1 / Math.round(-0.4)',
  'Math.sqrt(2)',
  'Math.sqrt($.neg)',
  'Math.max($.big, 1)',
  'Array.isArray($.list) && !Array.isArray($.obj) && !Array.isArray($.s)',
  'Array.isArray([])',
  '$.s.includes("b")',
  '$.s.includes("")',
  '$.s.startsWith("ab") && $.s.endsWith("c")',
  '$.s.indexOf("c") + $.s.lastIndexOf("z")',
  '$.obj.status.toUpperCase()',
  "'  Pad Me \t'.trim() + '|' + ' x '.trimStart() + '|' + ' y '.trimEnd()",
  '$.mixed.toLowerCase()',
  '$.s.slice(1) + $.s.slice(-2, -1) + $.s.slice(5) + $.s.substring(2, 0)',
  '$.s.substring(1)',
  '$.s.slice(1).toUpperCase().length',
  '$.uni.includes("é")',
  '$.uni.slice(1, 3)',
  '$.list.size() + $.list.get(1) + $.list.get(9)',
  '$.list.get(2).three',
  '$.list.includes(null) && $.list.includes("two") && !$.list.includes(2)',
  '$.list.indexOf("two") + $.list.lastIndexOf(1)',
  '$.list.includes(undefined)',
  '$.words.join() + $.words.join(" - ") + $.words.join("")',
  '[1, true, null, undefined, "x"].join("/")',
  '[].join()',
  '[0 / 0].includes(0 / 0)',
  '[0 / 0].indexOf(0 / 0)',
  '[1, undefined].includes(undefined)',
  '[1, 2].size()',
  '$.obj.get("status") + $.obj.get("missing")',
  '$.obj.get("a").get("b")',
  '({ a: 1 }).get("a")',
  "(function () { const l = $.words; if (l.includes('b')) { return { n: l.size(), first: l.get(0).toUpperCase() }; } return null; })()",
  "(function () { var code = $.obj.status.toLowerCase(); return ['ok', 'done'].includes(code) ? Math.max($.run, 10) : -1; })()",
  // A list's methods with a function of the script.
  '$.words.map(w => w.toUpperCase())',
  '$.words.map((w, i) => w + i)',
  '$.items.map(function (x) { return x.qty * 2; })',
  '$.items.map(function (x, i) { if (x.ok) { return i; } return -1; })',
  '$.items.filter(x => x.ok).length',
  '$.items.filter((x) => x.ok)',
  '$.items.some(x => x.qty > 4) && !$.items.every(x => x.ok)',
  '$.items.find(x => x.id === "b").qty',
  '$.items.find(x => x.id === "z")',
  '$.items.findIndex(x => !x.ok)',
  '$.items.reduce((sum, x) => sum + x.qty, 0)',
  '$.words.reduce((a, w) => a + w)',
  '$.items.map(x => ({ id: x.id, double: x.qty * 2 }))',
  '$.items.filter(x => x.ok).map(x => x.id).join(",")',
  '(function () { const total = $.items.reduce((s, x) => s + x.qty, 0); return { total: total, ids: $.items.map((x) => x.id) }; })()',
  '[1, 2, 3].map(n => [n, n * n])',
  '$.items.map(x => $.words.includes(x.id))',
  '$.items.map(x => $.words.filter(w => w === x.id).length)',
  '$.items.map(x => { const d = x.qty * 2; return d > 3 ? d : 0; })',
  '[].reduce((a, b) => a + b, 0)',
  '$.list.map(x => x === null)',
  '[1, undefined, 3].map(x => x)',
  'Object.keys($.obj)',
  'Object.keys($.obj).length',
  'Object.keys({ b: 1, a: undefined })',
  'Object.values($.withGet)',
  'Object.values($.obj)',
  'Object.values({ b: [1], a: undefined })',
  'Object.keys($.obj).filter(k => k.startsWith("s"))',
  '$.obj.status.split("")',
  '"a-b-c".split("-")[1]',
  '$.s.split("x")',
  '$.mixed.split(" ").map(w => w.length)',
  '$.s.replace("b", "-") + $.s.replace("z", "-")',
  '"a.b.c".replaceAll(".", "/")',
  '$.s.replaceAll("", "_") + $.empty.replaceAll("", "_")',
  '$.s.replace("", "^")',
  '$.s.padStart(6, "0") + $.s.padEnd(5) + $.s.padStart(2) + $.s.padEnd(7, "") + $.s.padStart(8, "xy")',
  '"ab".repeat(3) + "x".repeat(0)',
  '$.s.concat("-", $.obj.status) + $.s.concat()',
  '$.s.charAt(1) + $.s.charAt(9) + $.s.charAt(-1)',
  '[$.s.charCodeAt(0), $.s.charCodeAt(9), $.uni.charCodeAt(0)]',
  'Number($.num) + Number($.run) + Number("-42") + Number("0") + Number($.half)',
  '[Number("999999999999999"), Number("-7") * 2, Number($.num) === 12]',
  'String($.run) + String($.t) + String($.n) + String(undefined) + String($.s) + String(-$.run)',
  'Number.isInteger($.run) && !Number.isInteger($.half) && !Number.isInteger($.num)',
  '[Number.isFinite($.big), Number.isNaN(0 / 0), Number.isNaN($.s), Number.isSafeInteger($.big), Number.isFinite($.num)]',
];

/** Left to the sandbox: outside the language, or a value only the sandbox can answer for. */
const NOT_SIMPLE = [
  '$.obj.get',
  '$.obj.toString',
  '$.obj.constructor',
  '$.__proto__',
  '$.missing.x',
  '$.n.x',
  '$.run.x',
  '$.s[7]',
  '$.s + $.half',
  '$.big + ""',
  '$.list + 1',
  '$.obj == "x"',
  '$.obj < 1',
  '-$.obj',
  // Calls outside the list, or with arguments whose answer the sandbox must give.
  'Math.pow(2, 3)',
  'Math.random()',
  'Math.PI',
  'Math.max',
  'Math.max(1, "2")',
  'Math.abs(1, 2)',
  'Math.floor()',
  'Math["max"](1)',
  'Array.isArray()',
  'Array.from($.list)',
  'Array(3)',
  'Math',
  'parseInt($.num)',
  'JSON.stringify($.obj)',
  '$.s.includes(1)',
  '$.s.includes()',
  '$.s.includes("a", 1)',
  '$.s.slice(0.5)',
  '$.s.slice("1")',
  '$.s.slice()',
  '$.uni.toUpperCase()',
  '$.uni.trim()',
  '$.s.toUpperCase(1)',
  '$.s.get(0)',
  '$.s.size()',
  '$.list.includes($.obj)',
  '$.list.includes()',
  '$.list.join()',
  '$.words.join($.obj)',
  '$.floats.join()',
  '$.list.get("1")',
  '$.list.get(-1)',
  '$.list.get(1.5)',
  '$.list.size(1)',
  '$.list.map(1)',
  '$.obj.size()',
  '$.obj.get(1)',
  '$.withGet.get("a")',
  '$.obj.includes("a")',
  '$.run.toString()',
  '$.n.includes("a")',
  '$.missing.includes("a")',
  '$.s.includes("a")()',
  '$.s["includes"]("a")',
  '(function () { const Math = 1; return Math; })()',
  '(function Math() { return Math.max(1); })()',
  '(function () { return Math.max(1); var Array = 2; })()',
  '$.items.map(x => x)',
  '$.s.replace("a", "$&")',
  '$.s.replaceAll("a", "$$")',
  '$.s.replace("a")',
  '$.s.replace(1, "b")',
  '$.s.repeat(-1)',
  '$.s.repeat(1.5)',
  '$.s.repeat(100000000)',
  '$.s.padStart(100000000)',
  '$.s.padStart("5")',
  '$.s.concat(1)',
  '$.s.charAt()',
  '$.s.charAt("1")',
  'String($.half)',
  'String($.big)',
  'String($.obj)',
  'String($.list)',
  'String()',
  'String(1, 2)',
  'String.fromCharCode(65)',
  'String',
  'Number.parseFloat($.num)',
  'Number($.s)',
  'Number("")',
  'Number(" 12")',
  'Number("012")',
  'Number("1.5")',
  'Number("1e3")',
  'Number("0x10")',
  'Number("1000000000000000")',
  'Number($.t)',
  'Number($.n)',
  'Number()',
  'Number(1, 2)',
  'Number.isInteger()',
  '(function () { const String = 1; return String; })()',
  '(function () { let Number = 1; return Number; })()',
  'Object.keys($.list)',
  'Object.keys($.s)',
  'Object.keys($.n)',
  'Object.keys()',
  'Object.entries($.obj)',
  'Object.assign({}, $.obj)',
  'Object',
  '$.s.split()',
  '$.s.split(1)',
  '$.s.split("", 2)',
  '(function () { const Object = 1; return Object; })()',
  'Array.isArray($.items.map(x => x))',
  '$.items.map((x, i, all) => i)',
  '$.items.map(($) => 1)',
  '$.items.map(x => x.qty, 1)',
  '$.items.map(1)',
  '$.items.map()',
  '[].reduce((a, b) => a + b)',
  '$.items.reduce((a, b) => a + b, 0, 1)',
  '$.items.map(function named(x) { return 1; })',
  '$.items.map(async x => 1)',
  '$.items.map(x => { x.qty })',
  '$.items.forEach(x => x)',
  '$.items.map(x => y => 1)',
  '(function () { const x = 1; return $.items.map(x => x); })()',
  '$.items.map((x, x) => 1)',
  '$.items.map((x, 1) => 1)',
  'x => 1',
  '(x) => 1',
  '$.items.map(x => { var y = 1; return y; })',
  '$.items.map(x => x.qty = 1)',
  '$.s.map(x => x)',
  '$.obj.map(x => x)',
  'Math.max(x => 1)',
  '$.s.includes(x => 1)',
  '$.items.map(x => x.missing.y)',
  '$.items.map(x => undefinedName)',
  '$.items.reduce((acc, x) => x.ok ? acc.concat : acc, 0)',
  'x',
  '$.a = 1',
  '$.run++',
  '++$.run',
  '$.run ** 2',
  '$.a?.b',
  '$.zero || $.n ?? 1',
  '1e3',
  '0x10',
  '007',
  '`t`',
  "'\\u0041'",
  '$.run; $.even',
  '$.run // comment',
  '(function () { return 1; })',
  '(function () { return 1; })(1)',
  '(function (x) { return 1; })()',
  '(function $() { return $; })()',
  '(function e() { return e; })()',
  'function e() { return 1; } f();',
  'function () { return 1; }',
  'function e() { return 1; }',
  '(() => 1)()',
  '(function () { $.run; return 1; })()',
  '(function () { return 1 2; })()',
  '(function () { return\n1; })()',
  '(function () { if ($.t) return 1 else return 2; })()',
  '(function () { while ($.f) { } return 1; })()',
  '(function () { return $.list.map(function (x) { return x; }); })()',
  '(function () { return { __proto__: null }; })()',
  '(function () { return { 1: "a" }; })()',
  '(function () { return { "2": "a" }; })()',
  '(function () { return { [$.s]: 1 }; })()',
  '(function () { return { run }; })()',
  '(function () { return { ...$.obj }; })()',
  '(function () { return [1, , 2]; })()',
  '(function () { return [1, 2, ]; })()',
  '({ obj: $.obj })',
  '[$.list]',
  '({ a: 1 }) + 1',
  '{ a: 1 }',
  'if ($.t) { { a: 1 } }',
  '$.run, $.even',
  '(function () { var x = 1; var x = 2; return x; })()',
  '(function () { const x = 1; if ($.t) { const x = 2; } return x; })()',
  '(function () { if ($.t) { let x = 1; } var x = 2; return x; })()',
  '(function () { if ($.t) { var x = 1; } return 2; })()',
  '(function () { return x; var x = 1; })()',
  '(function () { if ($.t) { var x = 1; } return x; })()',
  '(function () { let x = x + 1; return x; })()',
  '(function () { let x; return x; })()',
  '(function () { let x = 1, y = 2; return x + y; })()',
  '(function () { let x = 1; x = 2; return x; })()',
  '(function () { let x = 1; x += 2; return x; })()',
  '(function () { const undefined = 1; return undefined; })()',
  '(function () { const $ = 1; return $; })()',
  '(function () { const NaN = 1; return NaN; })()',
  '(function () { if ($.t) let x = 1; return 2; })()',
  '(function () { const x = $.missing.y; return 1; })()',
  '(function e() { const e = 1; return e; })()',
  '(function () { const o = $.obj; return [o]; })()',
  'const x = 1; x',
  'return 1',
  '',
  ';',
  '$.run\n++$.even',
  'if ($.t) true; else false;',
  'if ($.t) { } else { false; }',
  'if ($.t) { 1; 2; }',
  'if ($.t) { 1 } $.run',
  '{ $.run }',
  'if ($.t) { var x = 1; x; }',
];

void describe('simple expressions, evaluated without the sandbox', () => {
  void it('answer what the sandbox answers', () => {
    for (const script of SIMPLE) {
      const here = simpleJavascript(script, INPUT, limits);
      assert.ok(here !== undefined, `${script}: evaluated here`);
      assert.deepEqual(here, sandbox.run(script, INPUT), script);
    }
  });

  void it('leave everything else to the sandbox', () => {
    for (const script of NOT_SIMPLE)
      assert.equal(simpleJavascript(script, INPUT, limits), undefined, `${script}: left to the sandbox`);
  });

  void it('leave input values JSON would change to the sandbox', () => {
    // An array with a hole at 1, as `[1, , 3]` makes it.
    const holey: unknown[] = [1];
    holey[2] = 3;
    const odd = {
      gone: undefined,
      nan: Number.NaN,
      negZero: -0,
      holes: holey,
      when: new Date(0),
      deep: { gone: undefined },
    } as unknown as JsonValue;
    for (const script of [
      '$.gone',
      '$.nan',
      '$.negZero',
      '$.holes[1]',
      '$.when',
      '$.deep.gone',
      'Object.keys($.deep)',
      'Object.values($.deep)',
      '$.holes.includes(3)',
      '[$.negZero].includes(0)',
      '$.holes.map(x => 1)',
    ])
      assert.equal(simpleJavascript(script, odd, limits), undefined, script);
    // What JSON does carry reads as in the sandbox.
    assert.deepEqual(simpleJavascript('$.holes[2]', odd, limits), { ok: true, value: 3 });
    assert.deepEqual(simpleJavascript('$.deep', odd, limits), sandbox.run('$.deep', odd));
  });

  void it('leave an answer over the output budget to the sandbox, and never build a string past it', () => {
    const tight = scriptLimits(16, 600_000, 1024);
    const large = { s: 'x'.repeat(800) };
    assert.equal(simpleJavascript('$.s + $.s', large, tight), undefined);
    assert.equal(simpleJavascript('$', { s: 'x'.repeat(2000) }, tight), undefined);
    assert.deepEqual(simpleJavascript('$.s.length', large, tight), { ok: true, value: 800 });
    // A literal's contents count as they are built: repeating a large input string stops early.
    assert.equal(simpleJavascript('[$.s, $.s]', large, tight), undefined);
    assert.equal(simpleJavascript('({ a: $.s, b: { c: [$.s] } })', large, tight), undefined);
    assert.deepEqual(simpleJavascript('[$.s]', large, tight), sandbox.run('[$.s]', large));
    // A name read twice places its literal twice: doubling stops at the budget, not after it.
    const doubling = `(function () { const a = [$.s.length]; ${Array.from(
      { length: 40 },
      (_, i) => `const b${i} = [${i === 0 ? 'a' : `b${i - 1}`}, ${i === 0 ? 'a' : `b${i - 1}`}];`,
    ).join(' ')} return b39; })()`;
    assert.equal(simpleJavascript(doubling, large, tight), undefined);
  });

  void it("bound the calls of a script's functions and what map makes, leaving the rest to the sandbox", () => {
    const many = (n: number): JsonValue => ({ a: Array.from({ length: n }, (_, i) => i) });
    assert.equal(simpleJavascript('$.a.map(x => x + 1).length', many(20_000), limits), undefined);
    assert.deepEqual(simpleJavascript('$.a.map(x => x + 1).length', many(5_000), limits), {
      ok: true,
      value: 5_000,
    });
    // Nested: each inner call counts.
    assert.equal(
      simpleJavascript('$.a.map(x => $.a.filter(y => y < x).length)', many(200), limits),
      undefined,
    );
    const small = many(50);
    const nested = '$.a.map(x => $.a.filter(y => y < x).length).reduce((s, n) => s + n, 0)';
    assert.deepEqual(simpleJavascript(nested, small, limits), sandbox.run(nested, small));
    // map's list counts against the output budget as it is made.
    const tight = scriptLimits(16, 600_000, 1024);
    const large = { s: 'x'.repeat(400), l: [1, 2, 3] };
    assert.equal(simpleJavascript('$.l.map(n => $.s)', large, tight), undefined);
    assert.equal(
      simpleJavascript('$.l.map(n => [$.s.length]).map(p => [p, p, p])', large, tight) !== undefined,
      true,
    );
    // Text made by a method is measured before it is made.
    for (const script of [
      '$.s.repeat(3)',
      '$.s.padStart(2000)',
      '$.s.padEnd(2000, "ab")',
      '$.s.replaceAll("", $.s)',
      '$.s.replaceAll("x", "yyyy")',
      '$.s.replace("x", $.s + $.s)',
      '$.s.concat($.s, $.s)',
    ])
      assert.equal(simpleJavascript(script, large, tight), undefined, script);
    assert.deepEqual(simpleJavascript('$.s.repeat(2).length', large, tight), { ok: true, value: 800 });
    const doubling = `$.l.map(n => [${'$.s, '.repeat(3)}n])`;
    assert.equal(simpleJavascript(doubling, large, tight), undefined);
  });

  // Expressions drawn at random from the language over the input above: whatever is answered here
  // must be exactly the sandbox's answer.
  void it('agree with the sandbox on expressions drawn at random', () => {
    let seed = 20261130;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      // The high bits: an LCG's low bits repeat with a short period.
      return Math.floor(seed / 65536) % n;
    };
    const pick = <T>(xs: readonly T[]): T => xs[random(xs.length)] as T;
    const leaves = [
      '$.run',
      '$.even',
      '$.zero',
      '$.half',
      '$.neg',
      '$.s',
      '$.empty',
      '$.num',
      '$.t',
      '$.f',
      '$.n',
      '$.missing',
      '$.list[0]',
      '$.list[1]',
      '$.list.length',
      '$.obj.count',
      '$.obj.status',
      '$.obj.a',
      '1',
      '2.5',
      '0',
      '"ok"',
      "'7'",
      'true',
      'null',
      'undefined',
    ];
    const binaries = ['+', '-', '*', '/', '%', '<', '<=', '>', '>=', '==', '!=', '===', '!==', '&&', '||'];
    const maths = ['max', 'min', 'abs', 'floor', 'ceil', 'round', 'trunc', 'sign', 'sqrt'];
    const methods = [
      'includes',
      'startsWith',
      'indexOf',
      'slice',
      'toUpperCase',
      'trim',
      'join',
      'size',
      'get',
      'replace',
      'padEnd',
      'repeat',
      'concat',
      'charAt',
    ];
    const call = (depth: number): string => {
      const arg = (): string =>
        random(3) === 0
          ? expr(depth - 1, true)
          : pick(['$.run', '$.half', '$.neg', '1', '-1', '"b"', "'ab'", '$.s', 'null']);
      const args = Array.from({ length: random(3) }, arg).join(', ');
      if (random(2) === 0) return `Math.${pick(maths)}(${args})`;
      if (random(3) === 0) {
        // A list method with a function of one element (its parameter read beside the leaves).
        const list = pick(['$.words', '$.list', '$.items', '[1, 2.5, "x"]']);
        const body = `(${expr(depth - 1)} ${pick(binaries)} ${pick(['x', 'x.id', 'x.length', 'x.qty'])})`;
        const method = pick(['map', 'filter', 'some', 'every', 'find', 'findIndex']);
        return `${list}.${method}(${pick([`x => ${body}`, `function (x) { return ${body}; }`])})`;
      }
      const on = pick(['$.s', '$.words', '$.list', '$.obj', '$.uni', '$.mixed', expr(depth - 1, true)]);
      return `${on}.${pick(methods)}(${args})`;
    };
    const expr = (depth: number, withCalls = false): string => {
      const r = random(depth <= 0 ? 1 : withCalls ? 8 : 6);
      if (r === 0 || depth <= 0) return pick(leaves);
      if (r === 1) return `${pick(['!', '-', '+'])}${expr(depth - 1, withCalls)}`;
      if (r === 2)
        return `(${expr(depth - 1, withCalls)} ? ${expr(depth - 1, withCalls)} : ${expr(depth - 1, withCalls)})`;
      if (r >= 6) return call(depth);
      return `(${expr(depth - 1, withCalls)} ${pick(binaries)} ${expr(depth - 1, withCalls)})`;
    };
    let answered = 0;
    let calls = 0;
    let callbacks = 0;
    for (let i = 0; i < 600; i++) {
      const script =
        i % 4 === 0
          ? `if (${expr(2)}) { ${expr(2)}; } else if (${expr(1)}) { ${expr(1)} } else { ${expr(2)}; }`
          : i % 4 === 1
            ? `(function () { const v = ${expr(2)}; if (${expr(2)}) { let w = [v, ${expr(1)}]; return [w, ${expr(2)}]; } else if (${expr(1)}) return ${expr(2)}; if (v) { return { a: ${expr(2)}, 'b c': v }; } })()`
            : expr(3);
      const here = simpleJavascript(script, INPUT, limits);
      if (here === undefined) continue;
      answered++;
      assert.deepEqual(here, sandbox.run(script, INPUT), script);
    }
    assert.ok(answered > 300, `${answered} of 600 answered here`);
    // Calls (built-in functions and methods) among the same.
    for (let i = 0; i < 800; i++) {
      const script = expr(3, true);
      const here = simpleJavascript(script, INPUT, limits);
      if (here === undefined) continue;
      if (/[a-zA-Z]\(/.test(script)) calls++;
      if (/=>|function \(x\)/.test(script)) callbacks++;
      assert.deepEqual(here, sandbox.run(script, INPUT), script);
    }
    assert.ok(calls > 80, `${calls} of 800 answered here with a call`);
    assert.ok(callbacks > 15, `${callbacks} of 800 answered here with a function of the script`);
  });
});
