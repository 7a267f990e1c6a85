/**
 * An error thrown only to be caught by the code that arranged for it, never shown: a group-commit
 * member leaving its batch (store-postgres/group-commit.ts), a script result still pending
 * (scripting/async-scripts.ts). It carries no stack: a thrown Error records its stack when it is
 * made, async frames included, and in a workflow that branches that cost about 100 µs each time a
 * member left its batch, about 1 % of the server's CPU a step (docs/PERFORMANCE.md, "Built: errors
 * that only steer carry no stack").
 */
export class ControlFlowError extends Error {
  constructor(message: string) {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      super(message);
    } finally {
      Error.stackTraceLimit = limit;
    }
  }
}
