import type { ScriptRunner } from '../engine/scripts.js';
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
    javascript: (script, input) => javascript.run(script, input),
    jq: (filter, input) => jq.run(filter, input),
    checkJavascript: (script) => javascript.check(script),
    checkJq: (filter) => jq.check(filter),
    close: () => jq.close(),
  };
}
