/** The caps every script evaluation runs under (settings `BATON_SCRIPT_MEMORY_MB`, `BATON_SCRIPT_TIMEOUT_MS`). */
export interface ScriptLimits {
  readonly memoryMb: number;
  /** `memoryMb` in bytes. */
  readonly memoryBytes: number;
  /** The JavaScript stack cap (deep recursion fails with a clear reason, not a crash). */
  readonly stackBytes: number;
  readonly timeoutMs: number;
}

export function scriptLimits(memoryMb: number, timeoutMs: number): ScriptLimits {
  return {
    memoryMb,
    memoryBytes: memoryMb * 1024 * 1024,
    stackBytes: 256 * 1024,
    timeoutMs,
  };
}
