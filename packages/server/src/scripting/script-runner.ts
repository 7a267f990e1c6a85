import type { AsyncScriptRunner } from './async-scripts.js';
import { scriptLimits } from './limits.js';
import { ScriptPool } from './script-pool.js';

/**
 * The server's scripts: QuickJS for JavaScript, real jq for jq, both under the same caps, on
 * script threads (`script-pool.ts`) so that no script runs on the event loop.
 */
export interface SandboxedScripts extends AsyncScriptRunner {
  close(): Promise<void>;
}

export interface ScriptSettings {
  readonly scriptMemoryMb: number;
  readonly scriptTimeoutMs: number;
  /** The inline limit: a script's value larger than this as JSON fails its evaluation. */
  readonly outputMaxBytes?: number;
  /** How many script threads (default: one per core, at least 2). */
  readonly threads?: number;
}

/** Starts the script threads; resolves once one of them has loaded both WebAssembly modules. */
export async function createScriptRunner(settings: ScriptSettings): Promise<SandboxedScripts> {
  const limits = scriptLimits(settings.scriptMemoryMb, settings.scriptTimeoutMs, settings.outputMaxBytes);
  return ScriptPool.start(limits, settings.threads);
}
