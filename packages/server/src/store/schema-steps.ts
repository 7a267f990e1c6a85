import type { Migration } from './sql-common.js';

/**
 * The one list of schema steps both stores follow, in order. A step's number, name and declared
 * compatibility live here; each dialect's `migrations.ts` holds only its SQL, keyed by step name
 * (`DialectSteps`, so a dialect cannot lack a step or have one the list does not). Forward-only:
 * never edit a released step, add the next one. From step 12 on every step is expand-only unless
 * marked `contract` (store/ARCHITECTURE.md, "Schema migrations"; test/store/migration-rules.test.ts
 * checks it). Steps 1-11 predate the declarations: each claims compatibility only with code that
 * knows it.
 *
 * `version` and `compatibleFrom` are the numbers PostgreSQL records. SQLite had no `hot-path` step
 * (round trips cost nothing in process), and its databases recorded the steps after it one lower;
 * those recorded numbers cannot change, so `SQLITE_LEGACY_VERSIONS` keeps them for the steps up to
 * `schema-compatibility`. Every later step records the same number on both dialects.
 */
export interface SchemaStep {
  version: number;
  name: string;
  /** The oldest schema (a step's `version`) whose code keeps working once this step is applied. */
  compatibleFrom: number;
  /** Set on a step that removes or reshapes what older code may read (store/ARCHITECTURE.md). */
  contract?: true;
}

export const SCHEMA_STEPS = [
  { version: 1, name: 'init', compatibleFrom: 1 },
  { version: 2, name: 'timers', compatibleFrom: 2 },
  { version: 3, name: 'run-control', compatibleFrom: 3 },
  { version: 4, name: 'task_limits', compatibleFrom: 4 },
  { version: 5, name: 'decide-set', compatibleFrom: 5 },
  { version: 6, name: 'hot-path', compatibleFrom: 6 },
  { version: 7, name: 'integrations', compatibleFrom: 7 },
  { version: 8, name: 'events-schedules-instructions', compatibleFrom: 8 },
  { version: 9, name: 'search-and-archive', compatibleFrom: 9 },
  { version: 10, name: 'auth', compatibleFrom: 10 },
  { version: 11, name: 'lock-is-response-deadline', compatibleFrom: 11 },
  { version: 12, name: 'run-free-text-index', compatibleFrom: 11 },
  { version: 13, name: 'schema-compatibility', compatibleFrom: 11 },
  { version: 14, name: 'storage-per-step', compatibleFrom: 11 },
  { version: 15, name: 'compact-rows', compatibleFrom: 15, contract: true },
  { version: 16, name: 'packed-task-records', compatibleFrom: 16, contract: true },
  // Its SQL only adds; a contract because a database made at this step packs its task records
  // from the start, which no earlier release reads (an upgraded one keeps the whole shape until
  // its operator switches, store-postgres/record-shape.ts).
  { version: 17, name: 'task-record-shape', compatibleFrom: 17, contract: true },
  // Drops a non-unique index: no statement of an earlier release can fail for it, only its plans
  // change (the rule's check allows exactly that, test/store/migration-rules.test.ts).
  { version: 18, name: 'queue-claim-index-only', compatibleFrom: 17 },
  // A storage parameter of an index: every statement of an earlier release reads and writes as before.
  { version: 19, name: 'run-search-pending-list', compatibleFrom: 17 },
  // Its SQL only adds a setting; a contract because a database made at this step keeps
  // `task_latest` rows only for runs that repeat a name (store/latest-by-name.ts), and an
  // earlier release would write such a run only some of them (an upgraded database keeps a row
  // for every task until its operator switches).
  { version: 20, name: 'latest-by-name-on-repeat', compatibleFrom: 20, contract: true },
  // Its SQL adds a table, a column and a setting, and lets `runs.definition` be empty; a contract
  // because a database made at this step writes compact run rows (their definition in
  // `run_definitions`, their record without what the columns hold), which no earlier release
  // reads (an upgraded one keeps whole rows until its operator switches, store-postgres/run-rows.ts).
  { version: 21, name: 'compact-run-rows', compatibleFrom: 21, contract: true },
  // A nullable column and an index: every statement of an earlier release reads and writes as before.
  { version: 22, name: 'run-definition-pruning', compatibleFrom: 21 },
  // An index only: every statement of an earlier release reads and writes as before.
  { version: 23, name: 'idempotency-keys-by-run', compatibleFrom: 21 },
  // No SQL on PostgreSQL, which has followed the rule since `latest-by-name-on-repeat`; on SQLite a
  // contract because a database at this step keeps `task_latest` rows only for runs that repeat a
  // name (store/latest-by-name.ts), and an earlier release would read such a run's decide set
  // without its ended tasks.
  { version: 24, name: 'embedded-latest-by-name-on-repeat', compatibleFrom: 24, contract: true },
] as const satisfies readonly SchemaStep[];

export type SchemaStepName = (typeof SCHEMA_STEPS)[number]['name'];

/** The last step after which both dialects record the same numbers. */
export const LAST_LEGACY_STEP = 13;

/** What SQLite databases recorded for the steps up to `LAST_LEGACY_STEP` (see above). */
export const SQLITE_LEGACY_VERSIONS: Readonly<Partial<Record<SchemaStepName, number>>> = {
  init: 1,
  timers: 2,
  'run-control': 3,
  task_limits: 4,
  'decide-set': 5,
  integrations: 6,
  'events-schedules-instructions': 7,
  'search-and-archive': 8,
  auth: 9,
  'lock-is-response-deadline': 10,
  'run-free-text-index': 11,
  'schema-compatibility': 12,
};

/** A dialect's part of a step: its statements, or why it has none. */
export type DialectStep =
  | {
      sql: string;
      /**
       * Set on an expand step whose SQL the expand-only check flags but which leaves older code's
       * reads and writes working: says which statement and why (checked by the migration-rules test).
       */
      reviewedStatements?: string;
    }
  | { none: string };

/** One entry per step of `SCHEMA_STEPS`, no more, no less. */
export type DialectSteps = { readonly [N in SchemaStepName]: DialectStep };

export type Dialect = 'postgres' | 'sqlite';

/** The number `dialect` records for a step (undefined: the dialect has nothing for it). */
export function recordedVersion(dialect: Dialect, step: SchemaStep): number {
  if (dialect === 'postgres' || step.version > LAST_LEGACY_STEP) return step.version;
  const legacy = SQLITE_LEGACY_VERSIONS[step.name as SchemaStepName];
  if (legacy === undefined)
    throw new Error(`schema step ${step.version} (${step.name}) has no SQLite number`);
  return legacy;
}

/**
 * A dialect's migrations: the steps it has SQL for, numbered as that dialect records them. A
 * `compatibleFrom` naming a step the dialect has none for names the step before it there.
 */
export function migrationsFor(
  dialect: Dialect,
  sql: DialectSteps,
  steps: readonly SchemaStep[] = SCHEMA_STEPS,
): Migration[] {
  const own = steps.filter((s) => !('none' in stepSql(sql, s)));
  const numberOf = (version: number): number => {
    const at = own.filter((s) => s.version <= version).at(-1);
    if (at === undefined) throw new Error(`no ${dialect} step at or before schema step ${version}`);
    return recordedVersion(dialect, at);
  };
  return own.map((step) => {
    const part = stepSql(sql, step);
    if ('none' in part) throw new Error('unreachable');
    return {
      version: recordedVersion(dialect, step),
      name: step.name,
      compatibleFrom: numberOf(step.compatibleFrom),
      ...(step.contract === true ? { contract: true as const } : {}),
      ...(part.reviewedStatements !== undefined ? { reviewedStatements: part.reviewedStatements } : {}),
      sql: part.sql,
    };
  });
}

function stepSql(sql: DialectSteps, step: SchemaStep): DialectStep {
  const part = (sql as Readonly<Record<string, DialectStep | undefined>>)[step.name];
  if (part === undefined) throw new Error(`schema step ${step.version} (${step.name}) has no SQL`);
  return part;
}
