import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';

import { scriptLimits } from '../../src/scripting/limits.js';
import { ScriptPool } from '../../src/scripting/script-pool.js';

/**
 * When the script threads exist: none until a script is evaluated, as many as evaluations wait
 * for (up to the pool's size), none again once they have sat idle; and a thread that cannot load
 * fails the evaluations waiting for it instead of leaving them waiting.
 */

const limits = scriptLimits(16, 5_000);

/** Waits until `condition` holds, polling, for at most `ms`. */
async function until(condition: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) assert.fail(`${what} within ${ms} ms`);
    await sleep(20);
  }
}

describe('script thread lifecycle', () => {
  it('makes no thread until a script runs, one per waiting evaluation up to its size, and ends them when idle', async () => {
    const pool = new ScriptPool(limits, { size: 2, idleMs: 300 });
    try {
      assert.equal(pool.threads, 0, 'a new pool holds no thread');
      // A simple expression needs no thread (simple-expression.ts); a statement does.
      assert.deepEqual(await pool.javascript('$.x + 1', { x: 1 }), { ok: true, value: 2 });
      assert.equal(pool.threads, 0, 'a simple expression needed no thread');
      assert.deepEqual(await pool.javascript('var y = $.x + 1; y', { x: 1 }), { ok: true, value: 2 });
      assert.equal(pool.threads, 1, 'one evaluation needed one thread');

      const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => pool.jq('.i * 2', { i })));
      assert.deepEqual(
        answers,
        Array.from({ length: 6 }, (_, i) => ({ ok: true, value: [i * 2] })),
      );
      const grown = pool.threadsMade;
      assert.ok(grown <= 3, `the pool made ${grown} threads for two at a time`);

      await until(() => pool.threads === 0, 10_000, 'the idle threads did not end');
      // A quiet pool loads a thread again for the next evaluation.
      assert.match((await pool.checkJavascript('$.x >')) ?? '', /^SyntaxError/);
      assert.equal(pool.threads, 1);
    } finally {
      await pool.close();
    }
  });

  it('a thread that keeps working is not ended by the idle time', async () => {
    // Pauses of 10 ms between evaluations against an idle time of 2 s: the one thread made serves
    // them all, however slow the machine.
    const pool = new ScriptPool(limits, { size: 1, idleMs: 2_000 });
    try {
      for (let i = 0; i < 40; i++) {
        assert.deepEqual(await pool.javascript('var y = $ + 1; y', i), { ok: true, value: i + 1 });
        await sleep(10);
      }
      assert.equal(pool.threadsMade, 1);
    } finally {
      await pool.close();
    }
  });

  it('an evaluation waiting for a thread that cannot load fails with the reason, and so does the next', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'baton-script-thread-'));
    const broken = join(dir, 'broken-thread.mjs');
    writeFileSync(broken, "throw new Error('this thread cannot load');\n");
    const pool = new ScriptPool(limits, { size: 2, threadModule: pathToFileURL(broken) });
    try {
      for (let round = 0; round < 2; round++) {
        const answers = await Promise.all([pool.javascript('var y = 1; y', null), pool.jq('.', null)]);
        for (const answer of answers) {
          assert.equal(answer.ok, false);
          assert.match(
            answer.ok ? '' : answer.error,
            /^the script threads could not start: the script thread failed: this thread cannot load/,
          );
        }
        await until(() => pool.threads === 0, 5_000, 'the failed threads were not let go');
      }
    } finally {
      await pool.close();
    }
  });

  it('a closed pool answers at once and makes no thread', async () => {
    const pool = new ScriptPool(limits, { size: 2 });
    await pool.close();
    assert.deepEqual(await pool.javascript('1', null), { ok: false, error: 'the server is stopping' });
    assert.equal(pool.threads, 0);
  });
});
