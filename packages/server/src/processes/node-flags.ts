/**
 * The flags `node` is given when it runs a Baton node: `npm start` and the benches' launcher start
 * the server with these (a test holds them to this list). They are flags of the `node` command
 * itself, which a process cannot change once it runs, and not on the entry's shebang: flags there
 * need `env -S`, which BusyBox (Alpine) and the BSDs lack. `baton server` runs the node in the
 * CLI's own process; `NODE_OPTIONS` gives them there (docs/operations.md).
 *
 * `--v8-pool-size=1`: V8's background work (the optimizing compiler, the garbage collector's
 * concurrent marking and parallel phases) runs on a pool of node's threads, four by default
 * whatever the machine. On a machine of two cores that a node shares with its database and its
 * workers, four such threads busy at once take the cores from the thread that answers requests:
 * a fresh node's slowest answers (p99 at one request at a time) were a fifth slower with four
 * than with one, and steps/s under load was the same (docs/PERFORMANCE.md, "Built: one thread
 * for V8's background work"). One thread still compiles and collects beside the main thread; only
 * their parallelism is capped.
 * An operator with cores to spare may give `node` a larger pool (docs/operations.md).
 */
export const NODE_FLAGS: readonly string[] = ['--v8-pool-size=1'];
