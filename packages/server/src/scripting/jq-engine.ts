import { createRequire } from 'node:module';

import type { JsonValue } from '@baton/protocol';

import { MAX_JSON_DEPTH } from '../bounds/ranges.js';
import type { ScriptResult } from '../engine/index.js';
import { outputBudget, outputTooLarge, type ScriptLimits } from './limits.js';

interface JqModule {
  raw(json: string, filter: string, flags: string[]): string | undefined;
}

/**
 * Real jq (the `jq-web` WebAssembly build), called synchronously in the thread that loaded it.
 * jq has no interrupt and its WebAssembly memory grows as the filter asks: it runs only inside
 * a script thread (`script-worker.ts`), which the server ends at the time cap.
 */
export class JqEngine {
  /** Set when a trap left jq's memory unusable: the thread must be replaced. */
  broken = false;

  private constructor(
    private readonly jq: JqModule,
    private readonly limits: ScriptLimits,
  ) {}

  static async load(limits: ScriptLimits): Promise<JqEngine> {
    // jq's `$ENV._` shows the program name: give it nothing of the host's.
    process.argv[1] = 'jq';
    const require = createRequire(import.meta.url);
    const jq = await (require('jq-web') as Promise<JqModule>);
    return new JqEngine(jq, limits);
  }

  /** Every value the filter produces for `input`, in order. */
  run(filter: string, input: JsonValue): ScriptResult<JsonValue[]> {
    const out = this.call(guarded(filter, outputBudget(this.limits)), JSON.stringify(input));
    if (!out.ok) {
      const over = OVER_CAP.exec(out.error);
      if (over) return { ok: false, error: outputTooLarge(this.limits, Number(over[1])) };
      // jq quotes the program's line in a compile error: the filter's own, not the wrapper's.
      if (COMPILE_ERROR.test(out.error)) return { ok: false, error: this.check(filter) ?? out.error };
      return out;
    }
    const bytes = Buffer.byteLength(out.value);
    if (bytes > outputBudget(this.limits)) return { ok: false, error: outputTooLarge(this.limits, bytes) };
    // With -c every value is one line (strings keep their newlines escaped).
    const lines = out.value.split('\n').filter((line) => line !== '');
    try {
      return { ok: true, value: lines.map((line) => JSON.parse(line) as JsonValue) };
    } catch {
      // jq writes `<skipped: too deep>` in place of a value nested past its printing depth
      // (10000 levels): far beyond what a run accepts, so it fails as too deep, not as bad JSON.
      return {
        ok: false,
        error: `the script's value is nested deeper than ${MAX_JSON_DEPTH} levels (the limit)`,
      };
    }
  }

  /**
   * Registration check: why the filter does not compile, or undefined. `empty | (filter)`
   * compiles the filter without ever running it, so a filter that would not end is no trouble.
   */
  check(filter: string): string | undefined {
    const wrapped = this.call(`empty | (${filter}\n)`, 'null');
    if (wrapped.ok || !COMPILE_ERROR.test(wrapped.error)) return undefined;
    // The filter's own words (line numbers of the filter as written): compiling it alone fails
    // the same way, so it does not run either.
    const direct = this.call(`empty | ${filter}`, 'null');
    return direct.ok ? wrapped.error : direct.error;
  }

  private call(filter: string, input: string): ScriptResult<string> {
    try {
      return { ok: true, value: this.jq.raw(input, filter, ['-c']) ?? '' };
    } catch (error) {
      const reason = jqReason(error);
      // WebAssembly.RuntimeError: a trap (an abort), not an error jq reported; the module's state
      // is lost. Out of memory: the memory stays grown. Either way the thread is replaced.
      const outOfMemory = /cannot allocate memory|out of memory/i.test(reason);
      if (outOfMemory || (error instanceof Error && error.name === 'RuntimeError')) this.broken = true;
      if (outOfMemory) {
        return {
          ok: false,
          error: `jq filter exceeded its memory limit of ${this.limits.wasmMemoryBytes / 2 ** 20} MB`,
        };
      }
      return { ok: false, error: reason };
    }
  }
}

/**
 * jq-web gathers everything jq writes, stdout and stderr, in JavaScript arrays of bytes: a filter
 * that writes without end would grow the thread's JavaScript heap past its cap, and Node ends a
 * whole process (not just the thread) when one large allocation overshoots a thread's cap. So
 * the filter is run inside a wrapper that bounds, in jq itself, everything that can be written:
 * its values (counted as `-c` writes them; over the inline limit the filter fails before writing
 * more), its error message (cut to 4 KiB), and the builtins that write to stderr (`debug`,
 * `stderr`, `halt_error`), which become harmless. Everything is on the filter's first line, so
 * jq's line numbers in its messages stay those of the filter as written.
 */
function guarded(filter: string, outputMaxBytes: number): string {
  const quiet =
    'def debug: .; def debug($m): .; def stderr: .; ' +
    'def halt_error: error("halt_error is not available to filters"); def halt_error($c): halt_error; ';
  const counted =
    `foreach ((${filter}\n) | [., (tojson | utf8bytelength)]) as $__batonValue ` +
    // The first value is stored twice (`result` and in `resultList`): it counts twice.
    `(0; . + $__batonValue[1] + 1 + (if . == 0 then $__batonValue[1] else 0 end); ` +
    `if . > ${outputMaxBytes} then error({__batonOutputBytes: .}) else $__batonValue[0] end)`;
  const reported =
    'if type == "string" then error(.[0:4096]) ' +
    'elif (tojson | utf8bytelength) > 4096 then error("the filter\'s error value is too large to report") ' +
    'else error end';
  return `${quiet}try (${counted}) catch (${reported})`;
}

const COMPILE_ERROR = /compile error|syntax error|is not defined/;

/** The wrapper's error when the values outgrow the inline limit (the bytes counted so far). */
const OVER_CAP = /\{"__batonOutputBytes":(\d+)\}/;

function jqReason(error: unknown): string {
  const stderr = (error as { stderr?: unknown }).stderr;
  const text =
    typeof stderr === 'string' && stderr !== ''
      ? stderr
      : error instanceof Error
        ? error.message
        : String(error);
  return (
    text
      .replace(/^Non-zero exit code: \d+\n/, '')
      .replace(/ \(at inputString:\d+\)/g, '')
      .replace(/\s+/g, ' ')
      .trim()
      // Conductor's reason for a failing filter is jq's message alone ('Cannot index string with
      // string "array"'), without the command-line tool's `jq: error: ` prefix.
      .replace(/^jq: error: /, '')
  );
}
