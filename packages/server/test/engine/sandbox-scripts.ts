import { before } from 'node:test';

import type { ScriptRunner } from '../../src/engine/scripts.js';
import { loadInThreadScripts } from '../../src/scripting/in-thread-scripts.js';
import { scriptLimits } from '../../src/scripting/limits.js';

/**
 * The server's sandbox (QuickJS and jq) in the test's own thread, synchronously, as the
 * interpreter sees it through `settleScripts`, for the interpreter tests: one per test file, made in the file's `before`. Call it at the top level of the
 * file; the answer delegates to the runner, so it may be kept in constants built at load time.
 */
export function sandboxScripts(): ScriptRunner {
  let runner: ScriptRunner | undefined;
  before(async () => {
    runner = await loadInThreadScripts(scriptLimits(16, 1000));
  });
  const get = (): ScriptRunner => {
    if (!runner) throw new Error('the script runner is made in the test file’s before()');
    return runner;
  };
  return {
    javascript: (script, input) => get().javascript(script, input),
    jq: (filter, input) => get().jq(filter, input),
    checkJavascript: (script) => get().checkJavascript(script),
    checkJq: (filter) => get().checkJq(filter),
  };
}
