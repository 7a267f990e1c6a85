import type { JsonValue } from '@baton/protocol';

import type { ScriptResult, ScriptRunner } from '../engine/index.js';
import { ControlFlowError } from '../control-flow-error.js';

/**
 * The server's side of scripts: the same four operations as the engine's `ScriptRunner` port,
 * answered later, because they run on script threads (`script-pool.ts`) while the event loop
 * goes on. The engine never sees this; `settleScripts` gives it the synchronous port.
 */
export interface AsyncScriptRunner {
  javascript(script: string, input: JsonValue): Promise<ScriptResult<JsonValue>>;
  /**
   * The answer at once, for a script that needs no script thread (simple-expression.ts), or
   * undefined: `javascript` then. The same answer `javascript` gives.
   */
  javascriptNow?(script: string, input: JsonValue): ScriptResult<JsonValue> | undefined;
  jq(filter: string, input: JsonValue): Promise<ScriptResult<JsonValue[]>>;
  checkJavascript(script: string): Promise<string | undefined>;
  checkJq(filter: string): Promise<string | undefined>;
}

/** A synchronous runner (tests, `noScripts`) seen as an asynchronous one. */
export function asyncScripts(scripts: ScriptRunner): AsyncScriptRunner {
  return {
    javascript: (script, input) => Promise.resolve(scripts.javascript(script, input)),
    jq: (filter, input) => Promise.resolve(scripts.jq(filter, input)),
    checkJavascript: (script) => Promise.resolve(scripts.checkJavascript(script)),
    checkJq: (filter) => Promise.resolve(scripts.checkJq(filter)),
  };
}

type Call =
  | { readonly op: 'javascript' | 'jq'; readonly source: string; readonly input: JsonValue }
  | { readonly op: 'checkJavascript' | 'checkJq'; readonly source: string };

/** A pure computation asked for a script the memo does not hold yet (see `settleScripts`). */
class ScriptPending extends ControlFlowError {
  constructor() {
    super('a script result is pending (internal: caught by settleScripts)');
  }
}

/** More rounds than this in one computation is a bug, not a workflow. */
const MAX_ROUNDS = 100_000;

/**
 * Runs a pure, synchronous computation that may call scripts (`decide`, a definition's
 * validation) without running any script on the event loop. The computation sees a
 * `ScriptRunner` that answers from a memo; the first call it does not hold stops the attempt
 * (it throws, and is noted even if the computation swallowed the throw), the call is evaluated
 * on a script thread, and the computation runs again from the start. A pure computation given
 * the same answers asks the same questions in the same order, so every round gets one step
 * further and the last one is exactly the answer a synchronous runner would have given.
 * Whatever else the computation draws (ids, random numbers) must be replayed the same way on
 * every attempt: see `replaying`.
 */
export async function settleScripts<T>(
  scripts: AsyncScriptRunner,
  attempt: (scripts: ScriptRunner) => T,
): Promise<T> {
  const memo = new Map<string, ScriptResult<JsonValue> | string | undefined>();
  for (let round = 0; round < MAX_ROUNDS; round++) {
    let missed: { key: string; call: Call } | undefined;
    const ask = <R>(call: Call): R => {
      const key = JSON.stringify(call);
      if (memo.has(key)) return memo.get(key) as R;
      missed ??= { key, call };
      throw new ScriptPending();
    };
    const sync: ScriptRunner = {
      javascript: (source, input) =>
        scripts.javascriptNow?.(source, input) ?? ask({ op: 'javascript', source, input }),
      jq: (source, input) => ask({ op: 'jq', source, input }),
      checkJavascript: (source) => ask({ op: 'checkJavascript', source }),
      checkJq: (source) => ask({ op: 'checkJq', source }),
    };
    let answer: T | undefined;
    try {
      answer = attempt(sync);
    } catch (error) {
      if (!(error instanceof ScriptPending)) throw error;
    }
    if (missed === undefined) return answer as T;
    memo.set(missed.key, await evaluate(scripts, missed.call));
  }
  throw new Error(`a computation asked for more than ${MAX_ROUNDS} script results`);
}

function evaluate(
  scripts: AsyncScriptRunner,
  call: Call,
): Promise<ScriptResult<JsonValue> | string | undefined> {
  switch (call.op) {
    case 'javascript':
      return scripts.javascript(call.source, call.input);
    case 'jq':
      return scripts.jq(call.source, call.input);
    case 'checkJavascript':
      return scripts.checkJavascript(call.source);
    case 'checkJq':
      return scripts.checkJq(call.source);
  }
}

/** A source of values (ids, random numbers) that hands out the same sequence after `rewind`. */
export interface Replaying<T> {
  readonly next: () => T;
  rewind(): void;
}

export function replaying<T>(source: () => T): Replaying<T> {
  const drawn: T[] = [];
  let at = 0;
  return {
    next: () => {
      if (at === drawn.length) drawn.push(source());
      return drawn[at++] as T;
    },
    rewind: () => {
      at = 0;
    },
  };
}
