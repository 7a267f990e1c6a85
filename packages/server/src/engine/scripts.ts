import type { JsonValue } from '@baton/protocol';

/**
 * The interpreter's window on user code: JavaScript (SWITCH/DECISION `javascript` evaluators,
 * INLINE and LAMBDA scripts, DO_WHILE `loopCondition`) and jq (JSON_JQ_TRANSFORM). The real
 * implementation (`src/scripting`) runs the code in a WebAssembly sandbox with a memory cap and
 * a time cap and no access to the host; the interpreter only sees results, so it stays free of
 * I/O. The same script and input give the same answer: the sandbox has no clock, no randomness
 * and no host objects that could make them differ.
 */
export interface ScriptRunner {
  /** Runs `script` with `$` bound to `input`; answers its value as JSON, or why it failed. */
  javascript(script: string, input: JsonValue): ScriptResult<JsonValue>;
  /** Runs the jq `filter` on `input`; answers every value it produced, in order. */
  jq(filter: string, input: JsonValue): ScriptResult<JsonValue[]>;
  /** Registration check: why the script does not parse, or undefined when it does. */
  checkJavascript(script: string): string | undefined;
  /** Registration check: why the jq filter does not compile, or undefined when it does. */
  checkJq(filter: string): string | undefined;
}

export type ScriptResult<T> =
  | { readonly ok: true; readonly value: T }
  /** `error` is a reason fit for `reasonForIncompletion` (no host paths, no stack of the engine). */
  | { readonly ok: false; readonly error: string };

/** A runner for servers and tests that have none: every script fails with the same clear reason. */
export const noScripts: ScriptRunner = {
  javascript: () => ({ ok: false, error: 'scripts are not available on this server' }),
  jq: () => ({ ok: false, error: 'jq is not available on this server' }),
  checkJavascript: () => undefined,
  checkJq: () => undefined,
};
