import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { createScriptRunner, type SandboxedScripts } from '../../src/scripting/script-runner.js';

/**
 * The script threads: what a runaway script or filter costs (its own evaluation, never the
 * event loop), the caps each evaluation runs under, and the thread that replaces a failed one.
 */
let scripts: SandboxedScripts;
before(() => {
  // A small inline limit, so output caps are reached with small values.
  scripts = createScriptRunner({
    scriptMemoryMb: 16,
    scriptTimeoutMs: 1000,
    outputMaxBytes: 64 * 1024,
    threads: 2,
  });
});
after(async () => {
  await scripts.close();
});

function reason(result: { ok: boolean; error?: string }): string {
  assert.equal(result.ok, false, `expected failure, got ${JSON.stringify(result).slice(0, 300)}`);
  return result.error ?? '';
}

const TIME_LIMIT = 'script exceeded its time limit of 1000 ms';
const JQ_TIME_LIMIT = 'jq filter exceeded its time limit of 1000 ms';

/**
 * Counts how often a 5 ms timer fires while `work` is pending: a script that held the event
 * loop would let it fire at most once (the cap is 1 s, so a free loop fires it dozens of times).
 */
async function ticksDuring<T>(work: Promise<T>): Promise<{ value: T; ticks: number }> {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 5);
  try {
    return { value: await work, ticks };
  } finally {
    clearInterval(timer);
  }
}

describe('script threads', () => {
  it('a runaway script or filter leaves the event loop free and fails at the time cap', async () => {
    const { value, ticks } = await ticksDuring(
      Promise.all([scripts.javascript('while (true) {}', {}), scripts.jq('def f: f; f', null)]),
    );
    assert.equal(reason(value[0]), TIME_LIMIT);
    assert.equal(reason(value[1]), JQ_TIME_LIMIT);
    assert.ok(ticks > 20, `the event loop ran ${ticks} timer ticks during a second of scripts`);
  });

  it('a script that swallows the interrupt, or turns it into a rejected promise, still ran out of time', async () => {
    assert.equal(reason(await scripts.javascript('try { while (true) {} } catch (e) { 1 }', {})), TIME_LIMIT);
    assert.equal(reason(await scripts.javascript('new Promise(()=>{while(true){}})', {})), TIME_LIMIT);
  });

  it('a promise or thenable value fails with a clear reason (no job queue runs: never `{}`)', async () => {
    for (const script of [
      'new Promise(() => {})',
      'Promise.resolve(1)',
      '({ then(resolve) { while (true) {} } })',
      '(async () => { for (;;) await 0; })()',
    ]) {
      assert.match(reason(await scripts.javascript(script, {})), /the script's value is a promise/, script);
    }
  });

  it('memory growth ends at the memory cap or the time cap, and the next script is answered', async () => {
    assert.match(
      reason(await scripts.javascript('let a=[]; while(true) a.push("x".repeat(1e6)+a.length);', {})),
      /exceeded its (memory limit of 16 MB|time limit of 1000 ms)/,
    );
    assert.deepEqual(await scripts.javascript('$.x + 1', { x: 1 }), { ok: true, value: 2 });
  });

  it('a value over the inline limit is refused, from a script and from jq', async () => {
    // A time cap far past what these take, so the size limit is what ends them however busy the
    // machine is (a slow jq stream must not end at the time cap instead).
    const scripts = createScriptRunner({
      scriptMemoryMb: 16,
      scriptTimeoutMs: 120_000,
      outputMaxBytes: 64 * 1024,
      threads: 1,
    });
    try {
      await refusesValuesOverTheLimit(scripts);
    } finally {
      await scripts.close();
    }
  });

  async function refusesValuesOverTheLimit(scripts: SandboxedScripts): Promise<void> {
    const over =
      /the script's value is at least \d+ bytes as JSON, over the limit of 65536 bytes for a script's value/;
    assert.match(reason(await scripts.javascript('"x".repeat(100 * 1024)', {})), over);
    assert.match(reason(await scripts.jq('"x" * 100000', null)), over);
    // Many small values count together; an endless stream stops at the limit.
    assert.match(reason(await scripts.jq('range(100000)', null)), over);
    assert.match(reason(await scripts.jq('repeat(1)', null)), over);
    // Under the limit is fine.
    assert.deepEqual(await scripts.jq('"x" * 60000 | length', null), { ok: true, value: [60000] });
    const js = await scripts.javascript('"x".repeat(40 * 1024)', {});
    assert.ok(js.ok && typeof js.value === 'string' && js.value.length === 40 * 1024);
    // jq's first value is stored twice in the task's output (`result` and `resultList`).
    assert.match(reason(await scripts.jq('"x" * (40 * 1024)', null)), over);
    assert.deepEqual(await scripts.jq('"x" * (20 * 1024) | length', null), { ok: true, value: [20480] });
  }

  it('jq builtins that write to stderr write nothing, and an error message is cut short', async () => {
    assert.deepEqual(await scripts.jq('1 | debug | debug("m") | stderr', null), { ok: true, value: [1] });
    assert.match(reason(await scripts.jq('"x" | halt_error', null)), /halt_error is not available/);
    assert.equal(reason(await scripts.jq('error("x" * 100000)', null)), 'x'.repeat(4096));
  });

  it('jq memory is capped per thread: a filter that grows it fails, the next one is answered', async () => {
    // Concatenation doubles: past the 256 MB cap within a fraction of a second.
    assert.match(
      reason(await scripts.jq('reduce range(40) as $i ("x"; . + .) | length', null)),
      /jq filter exceeded its (memory limit of 256 MB|time limit of 1000 ms)/,
    );
    assert.deepEqual(await scripts.jq('.a', { a: 1 }), { ok: true, value: [1] });
  });

  it('a thread that replaces a timed-out one has the same time cap, not a longer start budget', async () => {
    assert.equal(reason(await scripts.jq('def f: f; f', null)), JQ_TIME_LIMIT);
    const started = Date.now();
    assert.equal(reason(await scripts.jq('def f: f; f', null)), JQ_TIME_LIMIT);
    // The cap is kept by the main thread from the moment a loaded thread takes the filter: the
    // old runner gave a new thread 10 s more, 11 s in all. The bound is on that behaviour, with room
    // for a new thread's WebAssembly to load on a busy machine.
    assert.ok(Date.now() - started < 8_000, `the second runaway ran ${Date.now() - started} ms`);
  });

  it('registration checks compile without running, and a check that cannot finish refuses the filter', async () => {
    assert.equal(await scripts.checkJq('def f: f; f'), undefined);
    assert.equal(await scripts.checkJavascript('while (true) {}'), undefined);
    assert.match((await scripts.checkJq('def f: f; f |')) ?? '', /syntax error/);
    assert.match((await scripts.checkJq('nosuchfn(1)')) ?? '', /not defined/);
  });

  it('many evaluations at once are all answered, in whatever order the threads free up', async () => {
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        i % 10 === 0 ? scripts.javascript('while (true) {}', {}) : scripts.javascript('$.i * 2', { i }),
      ),
    );
    for (const [i, result] of results.entries()) {
      if (i % 10 === 0) assert.equal(reason(result), TIME_LIMIT);
      else assert.deepEqual(result, { ok: true, value: i * 2 });
    }
  });
});
