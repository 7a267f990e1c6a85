// The systems the benchmark knows, in the order it runs and reports them. The kind decides how a
// system is compared: Baton is measured against its peers, and the ceiling is what the database
// under them can commit at all, the bound no PostgreSQL-backed system can pass.
export const SYSTEMS = [
  { id: 'baton-postgres', kind: 'baton', name: 'Baton (PostgreSQL)' },
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

export const BATON_PG = 'baton-postgres';
export const BATON_PG_LEGACY = 'baton-postgres-legacy';
export const BATON_SQLITE = 'baton-sqlite';

/** The light-load pass's runs for a system: what was asked, within the system's own cap. */
export function latencyRunsFor(id, asked) {
  const cap = SYSTEMS.find((s) => s.id === id)?.maxLatencyRuns;
  return cap === undefined ? asked : Math.min(cap, asked);
}

/** 'baton', 'peer' or 'ceiling'; a system the catalogue does not name is a peer. */
export function kindOf(id) {
  return SYSTEMS.find((s) => s.id === id)?.kind ?? 'peer';
}

/** The name to show before a system has reported its own label (or when it failed). */
export function nameOf(id) {
  return SYSTEMS.find((s) => s.id === id)?.name ?? id;
}
