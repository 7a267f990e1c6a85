import type { JsonValue } from '@baton/protocol';

import { withinDepth } from '../bounds/json-shape.js';
import { MAX_JSON_DEPTH } from '../bounds/ranges.js';
import type { ScriptResult, ScriptRunner } from '../engine/scripts.js';
import { JavaScriptSandbox } from './javascript-sandbox.js';
import { JqRunner } from './jq-runner.js';
import { scriptLimits } from './limits.js';

/** The server's ScriptRunner: QuickJS for JavaScript, real jq for jq, both under the same caps. */
export interface SandboxedScripts extends ScriptRunner {
  close(): Promise<void>;
}

export interface ScriptSettings {
  readonly scriptMemoryMb: number;
  readonly scriptTimeoutMs: number;
}

/** Loads both WebAssembly modules (once, asynchronously); calls on the answer are synchronous. */
export async function createScriptRunner(settings: ScriptSettings): Promise<SandboxedScripts> {
  const limits = scriptLimits(settings.scriptMemoryMb, settings.scriptTimeoutMs);
  const [javascript, jq] = await Promise.all([JavaScriptSandbox.load(limits), JqRunner.start(limits)]);
  return {
    javascript: (script, input) => bounded(javascript.run(script, input)),
    jq: (filter, input) => bounded(jq.run(filter, input)),
    checkJavascript: (script) => javascript.check(script),
    checkJq: (filter) => jq.check(filter),
    close: () => jq.close(),
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
