// The systems the benchmark knows, in the order it runs and reports them. The kind decides how a
// system is compared: Baton is measured against its peers, and the ceiling is what the database
// under them can commit at all, the bound no PostgreSQL-backed system can pass.
export const SYSTEMS = [
  { id: 'baton-postgres', kind: 'baton', name: 'Baton (PostgreSQL)' },
  // Two nodes on one database: two server processes, the workers spread over both; and the same
  // from one server with BATON_PROCESSES=2 (a primary forking two node processes on one port).
  // Any count runs by its id: baton-postgres-4-nodes, baton-postgres-processes-4.
  { id: 'baton-postgres-2-nodes', kind: 'baton', name: 'Baton (PostgreSQL, 2 nodes)' },
  { id: 'baton-postgres-processes-2', kind: 'baton', name: 'Baton (PostgreSQL, BATON_PROCESSES=2)' },
  // The same server driven by legacy workers (batch poll + POST /api/tasks, no update-v2).
  { id: 'baton-postgres-legacy', kind: 'baton', name: 'Baton (PostgreSQL, legacy workers)' },
  { id: 'baton-sqlite', kind: 'baton', name: 'Baton (embedded SQLite)' },
  { id: 'graphile-worker', kind: 'peer', name: 'Graphile Worker' },
  // pg-boss 10 has no LISTEN/NOTIFY: each hand-off waits for its 0.5 s poll, so a light-load
  // pass of 200 runs would take a quarter of an hour to show the same figure 20 runs show.
  { id: 'pg-boss', kind: 'peer', name: 'pg-boss', maxLatencyRuns: 20 },
  { id: 'bullmq', kind: 'peer', name: 'BullMQ' },
  { id: 'dbos', kind: 'peer', name: 'DBOS Transact' },
  { id: 'postgres-ceiling', kind: 'ceiling', name: 'PostgreSQL INSERT commit ceiling' },
];

/**
 * The workflow shapes a system can run: every one runs the line; the branching shape (a fork and
 * join, a switch: branching-workflow.mjs) runs where the system has those of its own: Baton's
 * definitions, DBOS's workflow code, and the INSERT ceiling, which has no shape at all. The job
 * queues would each need an application's own join.
 */
const BRANCHING = new Set(['dbos', 'postgres-ceiling']);

/** Whether system `id` runs `shape` ('line' or 'branching'). */
export function runsShape(id, shape) {
  return shape === 'line' || kindOf(id) === 'baton' || BRANCHING.has(id);
}

export const BATON_PG = 'baton-postgres';
export const BATON_PG_LEGACY = 'baton-postgres-legacy';
export const BATON_SQLITE = 'baton-sqlite';
export const BATON_PG_2_NODES = 'baton-postgres-2-nodes';

/**
 * Systems whose id carries a count, run by one module with the count as an option:
 * `baton-postgres-<N>-nodes` (N server processes on one database) and
 * `baton-postgres-processes-<N>` (one server, BATON_PROCESSES=N).
 */
const COUNTED = [
  {
    pattern: /^baton-postgres-(\d+)-nodes$/,
    module: 'baton-postgres-nodes',
    option: 'nodes',
    name: (n) => `Baton (PostgreSQL, ${n} nodes)`,
  },
  {
    pattern: /^baton-postgres-processes-(\d+)$/,
    module: 'baton-postgres-processes',
    option: 'processes',
    name: (n) => `Baton (PostgreSQL, BATON_PROCESSES=${n})`,
  },
];

function counted(id) {
  for (const entry of COUNTED) {
    const n = Number(entry.pattern.exec(id)?.[1]);
    if (Number.isInteger(n) && n >= 1) return { entry, n };
  }
  return undefined;
}

/** The module (bench/systems/<module>.mjs) that runs system `id`, and options it adds. */
export function systemModule(id) {
  const c = counted(id);
  return c === undefined
    ? { module: id, options: {} }
    : { module: c.entry.module, options: { [c.entry.option]: c.n } };
}

/** The light-load pass's runs for a system: what was asked, within the system's own cap. */
export function latencyRunsFor(id, asked) {
  const cap = SYSTEMS.find((s) => s.id === id)?.maxLatencyRuns;
  return cap === undefined ? asked : Math.min(cap, asked);
}

/** 'baton', 'peer' or 'ceiling'; a system the catalogue does not name is a peer. */
export function kindOf(id) {
  return SYSTEMS.find((s) => s.id === id)?.kind ?? (counted(id) ? 'baton' : 'peer');
}

/** The name to show before a system has reported its own label (or when it failed). */
export function nameOf(id) {
  const c = counted(id);
  return SYSTEMS.find((s) => s.id === id)?.name ?? (c ? c.entry.name(c.n) : id);
}
