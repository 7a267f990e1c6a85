/**
 * The caps every script evaluation runs under (settings `BATON_SCRIPT_MEMORY_MB`,
 * `BATON_SCRIPT_TIMEOUT_MS`, and `BATON_PAYLOAD_INLINE_MAX_BYTES` for what a script answers).
 */
export interface ScriptLimits {
  readonly memoryMb: number;
  /** `memoryMb` in bytes. */
  readonly memoryBytes: number;
  /** The JavaScript stack cap (deep recursion fails with a clear reason, not a crash). */
  readonly stackBytes: number;
  readonly timeoutMs: number;
  /**
   * The cap on each WebAssembly memory of a script thread (jq's above all, which has no cap of
   * its own): 8 × `memoryMb`, at least 256 MB.
   */
  readonly wasmMemoryBytes: number;
  /** The largest value (as JSON text, in bytes) a script or jq filter may answer: the inline limit. */
  readonly outputMaxBytes: number;
}

/** The inline limit's default (`BATON_PAYLOAD_INLINE_MAX_BYTES`), for callers without settings. */
export const DEFAULT_OUTPUT_MAX_BYTES = 3 * 1024 * 1024;

/**
 * A script's value is never larger than this, whatever the inline limit: what crosses from
 * WebAssembly into a thread's JavaScript heap (jq-web gathers jq's output byte by byte in an
 * array, 8 bytes a byte) must fit the heap cap it is given, with room to spare.
 */
export const OUTPUT_CEILING_BYTES = 16 * 1024 * 1024;

export function scriptLimits(
  memoryMb: number,
  timeoutMs: number,
  outputMaxBytes: number = DEFAULT_OUTPUT_MAX_BYTES,
): ScriptLimits {
  return {
    memoryMb,
    memoryBytes: memoryMb * 1024 * 1024,
    stackBytes: 256 * 1024,
    timeoutMs,
    wasmMemoryBytes: Math.max(256, 8 * memoryMb) * 1024 * 1024,
    outputMaxBytes: Math.min(outputMaxBytes, OUTPUT_CEILING_BYTES),
  };
}

/**
 * The room a task's output needs around a script's value (`{"result": …}`, jq's
 * `{"result": …, "resultList": […]}` besides the values themselves), so the stored output stays
 * within the inline limit too.
 */
export const OUTPUT_ENVELOPE_BYTES = 64;

/** The most a script's value (for jq: its values, the first one counted twice) may take as JSON. */
export function outputBudget(limits: ScriptLimits): number {
  return Math.max(0, limits.outputMaxBytes - OUTPUT_ENVELOPE_BYTES);
}

/** Why a value over `outputMaxBytes` is refused (the same words for JavaScript and jq). */
export function outputTooLarge(limits: ScriptLimits, bytes: number): string {
  return `the script's value is at least ${bytes} bytes as JSON, over the limit of ${limits.outputMaxBytes} bytes for a script's value (the inline limit BATON_PAYLOAD_INLINE_MAX_BYTES, at most 16 MB)`;
}
