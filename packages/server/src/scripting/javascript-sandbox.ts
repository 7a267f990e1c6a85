import type { JsonValue } from '@baton/protocol';
import releaseSync from '@jitl/quickjs-wasmfile-release-sync';
import {
  newQuickJSWASMModuleFromVariant,
  type QuickJSContext,
  type QuickJSSyncVariant,
  type QuickJSHandle,
  type QuickJSRuntime,
  type QuickJSWASMModule,
} from 'quickjs-emscripten-core';

import type { ScriptResult } from '../engine/index.js';
import { outputBudget, outputTooLarge, type ScriptLimits } from './limits.js';

/**
 * JavaScript in a QuickJS WebAssembly sandbox. Each evaluation gets a fresh runtime and
 * context (its own heap, capped by `setMemoryLimit`, and its own stack cap), disposed
 * afterwards whatever happened, so nothing leaks from one evaluation to the next and a script
 * that broke its runtime (out of memory) cannot harm the next one (a runtime that could not be
 * freed marks the module `broken`, and its thread is replaced). An interrupt handler stops
 * the script at its deadline.
 *
 * No host function is exposed: the context has only the ECMAScript built-ins, so `process`,
 * `require`, `fetch` and the file system do not exist, and `import()` fails (no module loader).
 * Determinism: `Math.random()`, `Date.now()` and `new Date()` without arguments fail with a
 * clear reason (the same script on the same input must give the same answer on every node and
 * on replay); dates built from explicit values still work.
 *
 * The WebAssembly module is loaded once, asynchronously (`load`); evaluations are synchronous.
 * This class runs inside a script thread (`script-worker.ts`): the interrupt handler is the
 * polite stop, the server ending the thread at the deadline (`script-pool.ts`) the hard one.
 */
export class JavaScriptSandbox {
  /**
   * QuickJS could not free a failed script's runtime cleanly (some out-of-memory paths leave
   * objects behind): its memory would stay taken for good, so the module is not to be used
   * again. The script thread is replaced (`script-pool.ts`), which frees all of it.
   */
  broken = false;

  /** The next evaluation's runtime and context, made ahead (`prepare`). */
  private spare: Made | undefined;

  private constructor(
    private readonly quickjs: QuickJSWASMModule,
    private readonly limits: ScriptLimits,
    private readonly clock: () => number,
  ) {}

  static async load(limits: ScriptLimits, clock: () => number = Date.now): Promise<JavaScriptSandbox> {
    return new JavaScriptSandbox(await loadModule(), limits, clock);
  }

  /**
   * Runs `script` with `$` bound to a copy of `input`; the value of its last expression
   * statement is the result. A script with a top-level `return` runs as a function body
   * (Conductor's LAMBDA form). The result is converted to JSON (undefined → null).
   */
  run(script: string, input: JsonValue): ScriptResult<JsonValue> {
    return this.withContext((vm) => {
      const bound = this.evalIn(vm, `globalThis.$ = JSON.parse(${JSON.stringify(JSON.stringify(input))});`);
      if (!bound.ok) return bound;
      let outcome = vm.evalCode(script, 'script.js', { type: 'global' });
      if (outcome.error && isReturnOutsideFunction(vm, outcome.error)) {
        outcome.error.dispose();
        outcome = vm.evalCode(wrapAsFunctionBody(script), 'script.js', { type: 'global' });
      }
      if (outcome.error) return this.failure(vm, outcome.error);
      vm.setProp(vm.global, '__result', outcome.value);
      outcome.value.dispose();
      // Scripts are synchronous: no job queue runs here, so a promise (or any thenable) would
      // never settle and its JSON would be a meaningless `{}`.
      const thenable = this.evalIn(vm, IS_THENABLE);
      if (!thenable.ok) return thenable;
      if (thenable.value === true) {
        return {
          ok: false,
          error:
            "the script's value is a promise (or has a then method): scripts run synchronously and must answer a value",
        };
      }
      const json = this.evalIn(
        vm,
        'JSON.stringify(globalThis.__result === undefined ? null : globalThis.__result)',
      );
      if (!json.ok) return json;
      if (typeof json.value === 'string') {
        const bytes = Buffer.byteLength(json.value);
        if (bytes > outputBudget(this.limits))
          return { ok: false, error: outputTooLarge(this.limits, bytes) };
      }
      // JSON.stringify answers undefined for functions and symbols: those become null too.
      return {
        ok: true,
        value: typeof json.value === 'string' ? (JSON.parse(json.value) as JsonValue) : null,
      };
    });
  }

  /** Registration check: why the script does not compile (in either accepted form), or undefined. */
  check(script: string): string | undefined {
    const outcome = this.withContext((vm): ScriptResult<JsonValue> => {
      const direct = vm.evalCode(script, 'script.js', { type: 'global', compileOnly: true });
      if (!direct.error) {
        direct.value.dispose();
        return { ok: true, value: null };
      }
      if (isReturnOutsideFunction(vm, direct.error)) {
        direct.error.dispose();
        const wrapped = vm.evalCode(wrapAsFunctionBody(script), 'script.js', {
          type: 'global',
          compileOnly: true,
        });
        if (!wrapped.error) {
          wrapped.value.dispose();
          return { ok: true, value: null };
        }
        return this.failure(vm, wrapped.error);
      }
      return this.failure(vm, direct.error);
    });
    return outcome.ok ? undefined : outcome.error;
  }

  /**
   * Makes the next evaluation's runtime and context now, so that it does not wait for them: a
   * fresh context is most of a short script's time (about 0.4 of 0.9 ms, its built-ins and the
   * prelude). A script thread calls this once it has answered, while nothing waits on it. The
   * spare is used by one evaluation only, so each still starts from a context no script has seen.
   */
  prepare(): void {
    if (this.spare !== undefined || this.broken) return;
    try {
      const made = this.make();
      if ('vm' in made) this.spare = made;
    } catch {
      // As when an evaluation makes it: the module may be left unclean.
      this.broken = true;
    }
  }

  private withContext(body: (vm: QuickJSContext) => ScriptResult<JsonValue>): ScriptResult<JsonValue> {
    let made = this.spare;
    this.spare = undefined;
    try {
      if (made === undefined) {
        const fresh = this.make();
        if (!('vm' in fresh)) return fresh;
        made = fresh;
      }
      // The time cap counts from here, however long ago the context was made.
      made.timing.deadline = this.clock() + this.limits.timeoutMs;
      const result = body(made.vm);
      // Once interrupted, whatever the script made of it (a promise executor turns the interrupt
      // into a rejection, a catch block swallows it) the evaluation ran out of time.
      if (made.timing.interrupted) return { ok: false, error: this.timeoutReason() };
      return result;
    } catch (error) {
      // The runtime itself gave up (out of memory in QuickJS's own bookkeeping, the host stack):
      // the module may be left unclean, so it is not used again.
      this.broken = true;
      if (made?.timing.interrupted) return { ok: false, error: this.timeoutReason() };
      return { ok: false, error: `script failed: ${error instanceof Error ? error.message : String(error)}` };
    } finally {
      if (made !== undefined) this.dispose(made.runtime, made.vm);
    }
  }

  /**
   * A runtime with its caps and a context with the prelude run, or the prelude's failure. No
   * deadline yet: the evaluation that takes it sets one. Throws when QuickJS itself fails.
   */
  private make(): Made | ScriptResult<JsonValue> {
    const timing = { deadline: Infinity, interrupted: false };
    let runtime: QuickJSRuntime | undefined;
    let vm: QuickJSContext | undefined;
    try {
      runtime = this.quickjs.newRuntime();
      runtime.setMemoryLimit(this.limits.memoryBytes);
      runtime.setMaxStackSize(this.limits.stackBytes);
      runtime.setInterruptHandler(() => {
        if (this.clock() > timing.deadline) timing.interrupted = true;
        return timing.interrupted;
      });
      vm = runtime.newContext();
      const hardened = this.evalIn(vm, PRELUDE);
      if (!hardened.ok) {
        this.dispose(runtime, vm);
        return hardened;
      }
      return { runtime, vm, timing };
    } catch (error) {
      this.dispose(runtime, vm);
      throw error;
    }
  }

  private dispose(runtime: QuickJSRuntime | undefined, vm: QuickJSContext | undefined): void {
    try {
      if (vm?.alive) vm.dispose();
      if (runtime?.alive) runtime.dispose();
    } catch {
      this.broken = true;
    }
  }

  private evalIn(vm: QuickJSContext, code: string): ScriptResult<JsonValue> {
    const outcome = vm.evalCode(code, 'baton.js', { type: 'global' });
    if (outcome.error) return this.failure(vm, outcome.error);
    const value: unknown = vm.dump(outcome.value);
    outcome.value.dispose();
    return { ok: true, value: (value ?? null) as JsonValue };
  }

  private failure(vm: QuickJSContext, handle: QuickJSHandle): ScriptResult<JsonValue> {
    let reason: string;
    try {
      reason = describeError(vm.dump(handle));
    } catch {
      reason = 'script failed';
    } finally {
      handle.dispose();
    }
    if (/out of memory/i.test(reason)) {
      return { ok: false, error: `script exceeded its memory limit of ${this.limits.memoryMb} MB` };
    }
    if (/interrupted/i.test(reason)) return { ok: false, error: this.timeoutReason() };
    if (/stack overflow/i.test(reason))
      return { ok: false, error: `script exceeded its stack limit (${reason})` };
    return { ok: false, error: reason };
  }

  private timeoutReason(): string {
    return `script exceeded its time limit of ${this.limits.timeoutMs} ms`;
  }
}

/** A runtime and its context, ready for one evaluation; `timing` is what its interrupt handler reads. */
interface Made {
  readonly runtime: QuickJSRuntime;
  readonly vm: QuickJSContext;
  readonly timing: { deadline: number; interrupted: boolean };
}

/** Whether the script's value (`__result`) is a promise or another thenable. */
const IS_THENABLE = `(() => {
  const r = globalThis.__result;
  return r !== null && (typeof r === 'object' || typeof r === 'function') && typeof r.then === 'function';
})()`;

/**
 * Replaces the built-ins that would make a script's answer differ from one evaluation to the
 * next. Runs before the user's script, inside the sandbox.
 */
const DETERMINISM_PRELUDE = `
(() => {
  const RealDate = Date;
  const noClock = () => {
    throw new Error('the current time is not available to scripts (they must give the same answer on every evaluation); pass times in the input');
  };
  function BatonDate(...args) {
    if (args.length === 0) noClock();
    return new.target ? new RealDate(...args) : RealDate(...args);
  }
  BatonDate.prototype = RealDate.prototype;
  BatonDate.parse = RealDate.parse;
  BatonDate.UTC = RealDate.UTC;
  BatonDate.now = noClock;
  Object.defineProperty(RealDate.prototype, 'constructor', { value: BatonDate, writable: true, configurable: true });
  globalThis.Date = BatonDate;
  Math.random = () => {
    throw new Error('Math.random is not available to scripts (they must give the same answer on every evaluation)');
  };
})();
`;

/**
 * Conductor's INLINE scripts run on GraalJS, where a list in the input is a Java list and an
 * object a Java map: scripts written for it call `list.get(i)`, `list.size()` and `map.get(key)`.
 * These give them the same answers here. Non-enumerable, so JSON output and `for…in` are
 * unchanged, and on the prototype, so an object's own `get` key still wins.
 */
const CONDUCTOR_PRELUDE = `
(() => {
  const method = (target, name, fn) =>
    Object.defineProperty(target, name, { value: fn, writable: true, configurable: true, enumerable: false });
  method(Array.prototype, 'get', function get(index) { return this[index]; });
  method(Array.prototype, 'size', function size() { return this.length; });
  method(Object.prototype, 'get', function get(key) { return this[key]; });
})();
`;

const PRELUDE = DETERMINISM_PRELUDE + CONDUCTOR_PRELUDE;

// The package's types describe its CommonJS entry; under ESM the default import is the variant.
const variant = releaseSync as unknown as QuickJSSyncVariant;

function loadModule(): Promise<QuickJSWASMModule> {
  return newQuickJSWASMModuleFromVariant(variant);
}

function wrapAsFunctionBody(script: string): string {
  return `(function scriptFun() {\n${script}\n})();`;
}

function isReturnOutsideFunction(vm: QuickJSContext, handle: QuickJSHandle): boolean {
  try {
    const error: unknown = vm.dump(handle);
    return /return not in a function/i.test(describeError(error));
  } catch {
    return false;
  }
}

function describeError(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const { name, message } = error as { name?: unknown; message?: unknown };
    if (typeof message === 'string') return typeof name === 'string' ? `${name}: ${message}` : message;
  }
  if (typeof error === 'string') return error;
  return `script threw ${JSON.stringify(error) ?? String(error)}`;
}
