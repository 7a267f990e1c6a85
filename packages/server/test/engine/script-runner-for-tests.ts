import vm from 'node:vm';
import type { JsonValue } from '@baton/protocol';
import type { ScriptRunner } from '../../src/engine/scripts.js';

/**
 * A stand-in for the sandboxed script runner, for interpreter tests only: runs the script in a
 * fresh `node:vm` context with `$` bound to a copy of the input, and answers the value of its
 * last expression statement (so `if ($.x) { true; } else { false; }` works, as in Conductor).
 * It is no sandbox (no memory or time cap worth the name); the server uses the real one.
 */
const context = vm.createContext({});
const compiled = new Map<string, vm.Script>();

export const testScripts: ScriptRunner = {
  javascript(script: string, input: JsonValue) {
    try {
      let program = compiled.get(script);
      if (!program) compiled.set(script, (program = new vm.Script(script)));
      // One context for all runs (making one costs milliseconds); `$` is replaced each time.
      (context as { $?: unknown }).$ = structuredClone(input);
      const value: unknown = program.runInContext(context, { timeout: 1000 });
      const json = JSON.stringify(value);
      return { ok: true, value: json === undefined ? null : (JSON.parse(json) as JsonValue) };
    } catch (error) {
      return { ok: false, error: messageOf(error) };
    }
  },
  jq: () => ({ ok: false, error: 'jq is not available in these tests' }),
  checkJavascript(script: string) {
    try {
      new vm.Script(script);
      return undefined;
    } catch (error) {
      return messageOf(error);
    }
  },
  checkJq: () => undefined,
};

/** Errors thrown inside a vm context are not `instanceof Error` here (another realm). */
function messageOf(error: unknown): string {
  if (typeof error === 'object' && error !== null && 'message' in error) return String(error.message);
  return String(error);
}
