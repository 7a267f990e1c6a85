import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { JsonValue } from '@baton/protocol';

import type { ScriptRunner } from '../../src/engine/scripts.js';
import { replaying, settleScripts, type AsyncScriptRunner } from '../../src/scripting/async-scripts.js';

/** A runner that answers `$ + 1` for any script, counting the evaluations it was asked for. */
function counting(): AsyncScriptRunner & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    javascript: (script, input) => {
      asked.push(script);
      return Promise.resolve({ ok: true, value: (input as number) + 1 });
    },
    jq: (filter, input) => {
      asked.push(filter);
      return Promise.resolve({ ok: true, value: [input, input] });
    },
    checkJavascript: (script) => Promise.resolve(script.includes('bad') ? 'SyntaxError' : undefined),
    checkJq: () => Promise.resolve(undefined),
  };
}

describe('settleScripts', () => {
  it('gives a pure computation the answers a synchronous runner would, each script evaluated once', async () => {
    const runner = counting();
    const compute = (scripts: ScriptRunner): JsonValue[] => {
      const a = scripts.javascript('a', 1);
      const b = scripts.javascript('b', a.ok ? a.value : null);
      const c = scripts.jq('c', b.ok ? b.value : null);
      return [a.ok && a.value, b.ok && b.value, c.ok && c.value, scripts.checkJavascript('bad') ?? null];
    };
    assert.deepEqual(await settleScripts(runner, compute), [2, 3, [3, 3], 'SyntaxError']);
    assert.deepEqual(runner.asked, ['a', 'b', 'c']);
  });

  it('a computation that catches the pending signal is still run again', async () => {
    const runner = counting();
    const compute = (scripts: ScriptRunner): JsonValue => {
      try {
        const a = scripts.javascript('a', 1);
        return a.ok ? a.value : null;
      } catch {
        return 'swallowed';
      }
    };
    assert.equal(await settleScripts(runner, compute), 2);
  });

  it('passes other errors through', async () => {
    await assert.rejects(
      settleScripts(counting(), () => {
        throw new Error('boom');
      }),
      /boom/,
    );
  });

  it('replaying draws the same values after a rewind, so each attempt builds the same ids', async () => {
    let n = 0;
    const ids = replaying(() => `id-${n++}`);
    const runner = counting();
    const made = await settleScripts(runner, (scripts) => {
      ids.rewind();
      const first = ids.next();
      const a = scripts.javascript(first, 1);
      return [first, ids.next(), a.ok ? a.value : null];
    });
    assert.deepEqual(made, ['id-0', 'id-1', 2]);
    assert.deepEqual(runner.asked, ['id-0']);
  });
});
