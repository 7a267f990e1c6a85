import type { AsyncScriptRunner } from './async-scripts.js';
import { scriptLimits } from './limits.js';
import { ScriptPool } from './script-pool.js';

/**
 * The server's scripts: QuickJS for JavaScript, real jq for jq, both under the same caps, on
 * script threads (`script-pool.ts`) so that no script runs on the event loop.
 */
export interface SandboxedScripts extends AsyncScriptRunner {
  /** Script threads loading or loaded now. */
  readonly threads: number;
  close(): Promise<void>;
}

export interface ScriptSettings {
  readonly scriptMemoryMb: number;
  readonly scriptTimeoutMs: number;
  /** The inline limit: a script's value larger than this as JSON fails its evaluation. */
  readonly outputMaxBytes?: number;
  /** The most script threads at once (default: one per core, at least 2, at most 8). */
  readonly threads?: number;
  /** How long a script thread without work is kept (default 5 minutes). */
  readonly threadIdleMs?: number;
}

/**
 * The script runner. No thread is made until a script or filter is evaluated or checked: the
 * threads load on demand and end when idle (`script-pool.ts`).
 */
export function createScriptRunner(settings: ScriptSettings): SandboxedScripts {
  const limits = scriptLimits(settings.scriptMemoryMb, settings.scriptTimeoutMs, settings.outputMaxBytes);
  return new ScriptPool(limits, {
    ...(settings.threads !== undefined && { size: settings.threads }),
    ...(settings.threadIdleMs !== undefined && { idleMs: settings.threadIdleMs }),
  });
}
