import { setFlagsFromString } from 'node:v8';

/**
 * How soon V8 compiles a function to optimized code. A step runs a long path through the server
 * (HTTP, validation, the store, the interpreter, the answer), most of it once per request, and at
 * V8's default budget a function runs in the interpreter for about two thousand requests before it
 * is optimized: a fresh node, and every node at low load, spent most of its first minutes there
 * (docs/PERFORMANCE.md, "Built: a fresh node compiles its path sooner"). A quarter of the default
 * tiers up after a quarter of the work; code that is already optimized runs as before.
 */
export const INTERRUPT_BUDGET = 16 * 1024;

/** The flag names V8 takes for the budget (`-` and `_` are alike to V8). */
const BUDGET_FLAG = /^--interrupt[-_]budget(=|$)/;

/**
 * Sets the budget unless the operator gave `node` one on its command line (node refuses the flag
 * in `NODE_OPTIONS`, so its own arguments are the only place to look). Runs before the server's
 * modules are evaluated (the first import of main.ts), so their functions get the budget from
 * their first call.
 */
export function tierUpSooner(execArgv: readonly string[] = process.execArgv): boolean {
  if (execArgv.some((arg) => BUDGET_FLAG.test(arg))) return false;
  setFlagsFromString(`--interrupt-budget=${INTERRUPT_BUDGET}`);
  return true;
}
