import type { JsonValue } from '@baton/protocol';

import { withinDepth } from '../bounds/json-shape.js';
import { MAX_JSON_DEPTH } from '../bounds/ranges.js';
import type { ScriptResult, ScriptRunner } from '../engine/index.js';
import { JavaScriptSandbox } from './javascript-sandbox.js';
import { JqEngine } from './jq-engine.js';
import type { ScriptLimits } from './limits.js';

/** QuickJS and jq in the calling thread, synchronously: what a script thread runs. */
export interface InThreadScripts extends ScriptRunner {
  /** QuickJS or jq was left unusable (a trap, memory not freed): the thread is to be replaced. */
  readonly broken: boolean;
  /** Makes ahead what the next JavaScript evaluation needs (between evaluations, when idle). */
  prepare(): void;
}

/**
 * Loads both WebAssembly modules into this thread. Nothing here can stop a runaway jq filter or
 * keep a script's memory from the thread's heap: only a script thread (`script-worker.ts`)
 * should call it, and tests of the sandbox's semantics.
 */
export async function loadInThreadScripts(limits: ScriptLimits): Promise<InThreadScripts> {
  const [javascript, jq] = await Promise.all([JavaScriptSandbox.load(limits), JqEngine.load(limits)]);
  return {
    javascript: (script, input) => bounded(javascript.run(script, input)),
    jq: (filter, input) => bounded(jq.run(filter, input)),
    checkJavascript: (script) => javascript.check(script),
    checkJq: (filter) => jq.check(filter),
    prepare: () => javascript.prepare(),
    get broken() {
      return javascript.broken || jq.broken;
    },
  };
}

/**
 * A script's value enters runs like any input: no deeper than the bounds policy allows, so every
 * later walk of it (expressions, copies, schema checks) stays within a known depth.
 */
function bounded<T extends JsonValue>(result: ScriptResult<T>): ScriptResult<T> {
  if (!result.ok || withinDepth(result.value, MAX_JSON_DEPTH + 1)) return result;
  return {
    ok: false,
    error: `the script's value is nested deeper than ${MAX_JSON_DEPTH} levels (the limit)`,
  };
}
