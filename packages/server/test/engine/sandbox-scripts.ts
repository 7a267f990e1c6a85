import { after, before } from 'node:test';

import type { ScriptRunner } from '../../src/engine/scripts.js';
import { createScriptRunner, type SandboxedScripts } from '../../src/scripting/script-runner.js';

/**
 * The server's sandboxed script runner (QuickJS and jq) for the interpreter tests: one per test
 * file, made in the file's `before` and closed in its `after`. Call it at the top level of the
 * file; the answer delegates to the runner, so it may be kept in constants built at load time.
 */
export function sandboxScripts(): ScriptRunner {
  let runner: SandboxedScripts | undefined;
  before(async () => {
    runner = await createScriptRunner({ scriptMemoryMb: 16, scriptTimeoutMs: 1000 });
  });
  after(async () => {
    await runner?.close();
  });
  const get = (): SandboxedScripts => {
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
