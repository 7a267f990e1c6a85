import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { JavaScriptSandbox } from '../../src/scripting/javascript-sandbox.js';
import { scriptLimits } from '../../src/scripting/limits.js';
import { createScriptRunner, type SandboxedScripts } from '../../src/scripting/script-runner.js';

/** The real sandbox: QuickJS for JavaScript, jq-web for jq, with a small memory cap. */
let scripts: SandboxedScripts;
/** The same memory cap and a time cap no allocation test can reach first, however busy the machine. */
let roomyClock: JavaScriptSandbox;
before(async () => {
  scripts = createScriptRunner({ scriptMemoryMb: 16, scriptTimeoutMs: 1000 });
  roomyClock = await JavaScriptSandbox.load(scriptLimits(16, 600_000));
});
after(async () => {
  await scripts.close();
});

function value(result: Awaited<ReturnType<SandboxedScripts['javascript']>>): unknown {
  assert.ok(result.ok, `expected success, got ${JSON.stringify(result)}`);
  return result.value;
}

function reason(result: { ok: boolean; error?: string }): string {
  assert.equal(result.ok, false, `expected failure, got ${JSON.stringify(result)}`);
  return result.error ?? '';
}

describe('javascript sandbox', () => {
  const cases: [string, string, unknown, unknown][] = [
    ['expression', '$.x + 1', { x: 1 }, 2],
    ['last expression of an if/else', 'if ($.x > 1) { true; } else { false; }', { x: 2 }, true],
    ['last expression statement', 'var y = $.x * 2; y + 1;', { x: 3 }, 7],
    ['top-level return (LAMBDA form)', 'if ($.n > 0) return "pos"; return "neg";', { n: -1 }, 'neg'],
    ['function declared and called', 'function f(a) { return a.length } f($.list)', { list: [1, 2] }, 2],
    ['undefined becomes null', 'undefined', {}, null],
    ['objects become JSON', '({a: [1, {b: undefined}], f() {}})', {}, { a: [1, {}] }],
    ['a function becomes null', '(function () {})', {}, null],
    ['$ is a copy of the input', '$.list.push(3); $.list', { list: [1, 2] }, [1, 2, 3]],
    // Conductor's GraalJS idioms (Java lists and maps): list.get(i), list.size(), map.get(key).
    ['Conductor list.get(i) and list.size()', '$.list.get(1) + $.list.size()', { list: [10, 20] }, 22],
    ['Conductor map.get(key)', '$.m.get("a") + ($.m.get("none") === undefined ? 1 : 0)', { m: { a: 2 } }, 3],
    [
      'Conductor loop over a list by size()',
      'var s = 0; for (var i = 0; i < $.l.size(); i++) s += $.l.get(i).n; s',
      { l: [{ n: 1 }, { n: 2 }] },
      3,
    ],
    ['an own get key wins over map.get', '$.m.get', { m: { get: 'mine' } }, 'mine'],
    [
      'the methods leave JSON and for-in alone',
      'var k = []; for (var x in $.m) k.push(x); for (var y in $.l) k.push(y); ({ k: k, m: $.m, l: $.l, j: JSON.stringify([$.m, $.l]) })',
      { m: { a: 1 }, l: [5] },
      { k: ['a', '0'], m: { a: 1 }, l: [5], j: '[{"a":1},[5]]' },
    ],
    ['$ with a __proto__ key stays data', '$.__proto__.x', JSON.parse('{"__proto__": {"x": 1}}'), 1],
    ['$ may be an array', '$.length', [1, 2, 3], 3],
    ['explicit dates work', 'new Date("2020-01-02T00:00:00Z").toISOString()', {}, '2020-01-02T00:00:00.000Z'],
  ];
  for (const [name, script, input, expected] of cases) {
    it(name, async () => assert.deepEqual(value(await scripts.javascript(script, input as never)), expected));
  }

  it('does not change the caller’s input', async () => {
    const input = { list: [1] };
    value(await scripts.javascript('$.list.push(2); 0', input));
    assert.deepEqual(input, { list: [1] });
  });

  it('reports thrown errors and runtime errors with their message', async () => {
    assert.equal(reason(await scripts.javascript('throw new Error("boom")', {})), 'Error: boom');
    assert.match(reason(await scripts.javascript('$.a.b.c', {})), /^TypeError: .*b/);
    assert.match(reason(await scripts.javascript('1 +', {})), /^SyntaxError/);
  });

  it('stops an endless loop at the time cap', async () => {
    assert.equal(
      reason(await scripts.javascript('while (true) {}', {})),
      'script exceeded its time limit of 1000 ms',
    );
  });

  it('stops huge allocations at the memory cap', () => {
    const message = 'script exceeded its memory limit of 16 MB';
    assert.equal(reason(roomyClock.run('new Array(1e9).fill(1).length', {})), message);
    assert.equal(reason(roomyClock.run('"x".repeat(256 * 1024 * 1024).length', {})), message);
    assert.equal(
      reason(roomyClock.run('const a = []; while (true) a.push("abcdefgh" + a.length);', {})),
      message,
    );
  });

  it('stops deep recursion with a clear reason', async () => {
    assert.match(reason(await scripts.javascript('function r() { return r() } r()', {})), /stack/);
  });

  it('keeps answering after scripts that broke their caps (no state leaks between evaluations)', async () => {
    await scripts.javascript('globalThis.leak = 1; while (true) {}', {});
    await scripts.javascript('new Array(1e9).fill(1)', {});
    assert.equal(value(await scripts.javascript('typeof leak', {})), 'undefined');
    assert.equal(value(await scripts.javascript('$.x', { x: 5 })), 5);
  });

  it('gives each evaluation a context of its own when the next one is made ahead', () => {
    roomyClock.prepare();
    assert.equal(
      value(roomyClock.run('Array.prototype.leak = 1; globalThis.kept = 2; Object.freeze(Object); 1', {})),
      1,
    );
    roomyClock.prepare();
    assert.deepEqual(value(roomyClock.run('[typeof [].leak, typeof kept, Object.isFrozen(Object)]', {})), [
      'undefined',
      'undefined',
      false,
    ]);
  });

  it('counts the time cap from the evaluation, not from when its context was made ahead', async () => {
    let now = 0;
    let ticking = false;
    // Each look at the clock by the interrupt handler moves it on a millisecond, once ticking.
    const sandbox = await JavaScriptSandbox.load(scriptLimits(16, 1000), () => (ticking ? ++now : now));
    sandbox.prepare();
    now = 1_000_000;
    // A long loop asks the interrupt handler often: a deadline from the preparation would stop it.
    assert.equal(
      value(sandbox.run('let s = 0; for (let i = 0; i < 300000; i++) s += i % 3; s', {})),
      300_000,
    );
    sandbox.prepare();
    ticking = true;
    assert.match(reason(sandbox.run('while (true) {}', {})), /time limit of 1000 ms/);
    ticking = false;
    assert.equal(value(sandbox.run('$.x', { x: 3 })), 3);
  });

  it('exposes nothing of the host', async () => {
    assert.equal(
      value(
        await scripts.javascript(
          '[typeof process, typeof require, typeof fetch, typeof std, typeof os].join()',
          {},
        ),
      ),
      'undefined,undefined,undefined,undefined,undefined',
    );
    assert.match(reason(await scripts.javascript('process.env', {})), /ReferenceError/);
    assert.match(reason(await scripts.javascript('require("fs")', {})), /ReferenceError/);
    assert.match(reason(await scripts.javascript('fetch("http://127.0.0.1/")', {})), /ReferenceError/);
    // import() has no module loader behind it (and a script's promises are never run): no module.
    assert.deepEqual(
      value(await scripts.javascript('let r = "none"; import("fs").then(() => { r = "loaded" }); r', {})),
      'none',
    );
  });

  it('has no clock and no randomness (same answer on every evaluation)', async () => {
    assert.match(reason(await scripts.javascript('Date.now()', {})), /current time is not available/);
    assert.match(
      reason(await scripts.javascript('new Date().getTime()', {})),
      /current time is not available/,
    );
    assert.match(reason(await scripts.javascript('Math.random()', {})), /Math.random is not available/);
  });

  it('checks syntax at registration, accepting both script forms', async () => {
    assert.equal(await scripts.checkJavascript('$.x > 1'), undefined);
    assert.equal(await scripts.checkJavascript('return $.x > 1'), undefined);
    assert.match((await scripts.checkJavascript('$.x >')) ?? '', /^SyntaxError/);
    // Compiling never runs the script.
    assert.equal(await scripts.checkJavascript('while (true) {}'), undefined);
  });

  it('a syntax check that runs out of time does not refuse the text (a busy machine is no syntax error)', async () => {
    const hurried = createScriptRunner({ scriptMemoryMb: 64, scriptTimeoutMs: 1 });
    try {
      const long = `var a = [${'1,'.repeat(2_000_000)}1]; a.length`;
      // The same text run under that cap does hit it: the check above did run out of time.
      assert.match(reason(await hurried.javascript(long, {})), /time limit of 1 ms/);
      assert.equal(await hurried.checkJavascript(long), undefined);
      assert.equal(await hurried.checkJq(`[${'1,'.repeat(500_000)}1] | length`), undefined);
      // What the check finds in time is still a refusal.
      assert.match((await scripts.checkJavascript('$.x >')) ?? '', /^SyntaxError/);
    } finally {
      await hurried.close();
    }
  });

  it('answers another evaluation after one hits its time cap', async () => {
    // Two evaluations queued together, as two runs decided at the same time: the first hits
    // the time cap, the second is answered right after it.
    const results = await Promise.all([
      scripts.javascript('while (true) {}', {}),
      scripts.javascript('$.x * 2', { x: 21 }),
    ]);
    assert.equal(results[0].ok, false);
    assert.deepEqual(results[1], { ok: true, value: 42 });
  });
});

describe('jq', () => {
  it('answers every output of a filter', async () => {
    assert.deepEqual(await scripts.jq('.a[]', { a: [1, 'two\nlines', { b: null }] }), {
      ok: true,
      value: [1, 'two\nlines', { b: null }],
    });
    assert.deepEqual(await scripts.jq('empty', {}), { ok: true, value: [] });
    assert.deepEqual(await scripts.jq('{sum: (.a | add), keys: keys}', { a: [1, 2] }), {
      ok: true,
      value: [{ sum: 3, keys: ['a'] }],
    });
  });

  it('is real jq (paths, reduce, string functions, @formats)', async () => {
    assert.deepEqual(await scripts.jq('[paths]', { a: { b: 1 } }), {
      ok: true,
      value: [[['a'], ['a', 'b']]],
    });
    assert.deepEqual(await scripts.jq('reduce .[] as $x (0; . + $x)', [1, 2, 3]), { ok: true, value: [6] });
    assert.deepEqual(await scripts.jq('@base64', 'hi'), { ok: true, value: ['aGk='] });
  });

  it('reports runtime and compile errors clearly', async () => {
    assert.equal(reason(await scripts.jq('error("boom")', {})), 'boom');
    // Conductor's JsonJQTransformSpec: the reason is jq's message alone.
    assert.equal(
      reason(await scripts.jq('.in1.array', { in1: 'a' })),
      'Cannot index string with string "array"',
    );
    assert.match(reason(await scripts.jq('.a |', {})), /syntax error/);
    assert.match(reason(await scripts.jq('{} + 1', {})), /cannot be added/);
  });

  it('stops a runaway filter at the time cap and keeps answering', async () => {
    assert.equal(
      reason(await scripts.jq('last(repeat(1))', null)),
      'jq filter exceeded its time limit of 1000 ms',
    );
    assert.deepEqual(await scripts.jq('.x', { x: 1 }), { ok: true, value: [1] });
  });

  it('refuses a value nested past the depth limit, even past what jq prints', async () => {
    for (const depth of [500, 20_000]) {
      // 20 000 levels: jq prints `<skipped: too deep>` instead of the value (not JSON); with
      // a small cap jq may run out of memory first.
      assert.match(
        reason(await scripts.jq(`reduce range(${depth}) as $i (null; [.])`, null)),
        /nested deeper than \d+ levels|time limit|memory limit/,
      );
    }
    assert.deepEqual(await scripts.jq('.x', { x: 1 }), { ok: true, value: [1] });
  });

  it('shows nothing of the host environment', async () => {
    const env = await scripts.jq('$ENV', null);
    assert.ok(env.ok);
    const text = JSON.stringify(env.value);
    for (const [key, val] of Object.entries(process.env)) {
      if (val && val.length > 3 && key !== 'LANG') assert.ok(!text.includes(val), `host ${key} leaked`);
    }
  });

  it('compiles filters at registration', async () => {
    assert.equal(await scripts.checkJq('.a | map(. + 1)'), undefined);
    assert.equal(await scripts.checkJq('def f: . + 1; f'), undefined);
    assert.equal(
      await scripts.checkJq('.a.b'),
      undefined,
      'fails on null input only at run time: not a compile error',
    );
    assert.match((await scripts.checkJq('.a |')) ?? '', /syntax error/);
    assert.match((await scripts.checkJq('nosuchfn(1)')) ?? '', /not defined/);
  });
});
