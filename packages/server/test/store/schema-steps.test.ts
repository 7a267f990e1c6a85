import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { POSTGRES_MIGRATIONS, POSTGRES_STEPS } from '../../src/store-postgres/migrations.js';
import { SQLITE_MIGRATIONS, SQLITE_STEPS } from '../../src/store-sqlite/migrations.js';
import {
  LAST_LEGACY_STEP,
  SCHEMA_STEPS,
  type DialectSteps,
  type SchemaStep,
  migrationsFor,
} from '../../src/store/schema-steps.js';

/**
 * Both stores follow one list of schema steps (store/schema-steps.ts). These tests fail when a
 * step has SQL for one dialect and not the other, or when the numbers the dialects record drift.
 */

/**
 * Steps a dialect has no SQL for: `hot-path` predates the joined lists; `storage-per-step` sets a
 * PostgreSQL index option, and `compact-rows` reshapes SQLite's task and run rows and
 * `packed-task-records` packs SQLite's task records (PostgreSQL nodes of the previous release
 * may still share a database, so PostgreSQL packs from `task-record-shape` on, by a setting of the
 * database's, which SQLite, owned by one process, does not need); `queue-claim-index-only` keeps
 * PostgreSQL's planner from taking the wrong queue index, where SQLite's statements name theirs;
 * `run-search-pending-list` sets an option of PostgreSQL's GIN index, where SQLite has FTS5;
 * `latest-by-name-on-repeat` changes what PostgreSQL writes to `task_latest` behind a setting of
 * the database's, and `embedded-latest-by-name-on-repeat` does so on SQLite, whose schema alone
 * says it.
 */
const WITHOUT_SQL: Readonly<Record<string, readonly string[]>> = {
  postgres: ['compact-rows', 'packed-task-records', 'embedded-latest-by-name-on-repeat'],
  sqlite: [
    'hot-path',
    'storage-per-step',
    'task-record-shape',
    'queue-claim-index-only',
    'run-search-pending-list',
    'latest-by-name-on-repeat',
    'compact-run-rows',
  ],
};

const names = SCHEMA_STEPS.map((s) => s.name);

for (const [dialect, steps] of [
  ['postgres', POSTGRES_STEPS],
  ['sqlite', SQLITE_STEPS],
] as const) {
  void describe(`the ${dialect} SQL of the schema steps`, () => {
    void it('has an entry for every step of the list and none other', () => {
      assert.deepEqual(Object.keys(steps).sort(), [...names].sort());
    });

    void it('has SQL for every step, but for the steps it never had', () => {
      const without = SCHEMA_STEPS.filter((s) => 'none' in steps[s.name]).map((s) => s.name);
      assert.deepEqual(without, WITHOUT_SQL[dialect]);
      for (const s of SCHEMA_STEPS) {
        const part = steps[s.name];
        if ('sql' in part) assert.ok(part.sql.trim().length > 0, `${dialect} step ${s.name} has empty SQL`);
      }
    });
  });
}

void describe('the one schema step list', () => {
  void it('numbers steps in order and declares compatibility in range', () => {
    let previous = 0;
    for (const s of SCHEMA_STEPS as readonly SchemaStep[]) {
      assert.ok(s.version > previous, `${s.name} is out of order`);
      assert.ok(s.compatibleFrom >= 1 && s.compatibleFrom <= s.version, `${s.name} compatibility`);
      previous = s.version;
    }
  });

  void it('keeps the numbers existing databases recorded', () => {
    const recorded = (list: ReadonlyArray<{ version: number; name: string; compatibleFrom: number }>) =>
      list.filter((m) => m.version <= LAST_LEGACY_STEP).map((m) => [m.version, m.name, m.compatibleFrom]);
    assert.deepEqual(recorded(POSTGRES_MIGRATIONS), [
      [1, 'init', 1],
      [2, 'timers', 2],
      [3, 'run-control', 3],
      [4, 'task_limits', 4],
      [5, 'decide-set', 5],
      [6, 'hot-path', 6],
      [7, 'integrations', 7],
      [8, 'events-schedules-instructions', 8],
      [9, 'search-and-archive', 9],
      [10, 'auth', 10],
      [11, 'lock-is-response-deadline', 11],
      [12, 'run-free-text-index', 11],
      [13, 'schema-compatibility', 11],
    ]);
    assert.deepEqual(recorded(SQLITE_MIGRATIONS), [
      [1, 'init', 1],
      [2, 'timers', 2],
      [3, 'run-control', 3],
      [4, 'task_limits', 4],
      [5, 'decide-set', 5],
      [6, 'integrations', 6],
      [7, 'events-schedules-instructions', 7],
      [8, 'search-and-archive', 8],
      [9, 'auth', 9],
      [10, 'lock-is-response-deadline', 10],
      [11, 'run-free-text-index', 10],
      [12, 'schema-compatibility', 10],
    ]);
  });

  void it('numbers every step after the joined ones alike on both dialects', () => {
    const later = (dialect: 'postgres' | 'sqlite') =>
      SCHEMA_STEPS.filter((s) => s.version > LAST_LEGACY_STEP && !WITHOUT_SQL[dialect]?.includes(s.name)).map(
        (s) => s.version,
      );
    assert.deepEqual(
      POSTGRES_MIGRATIONS.filter((m) => m.version > LAST_LEGACY_STEP).map((m) => m.version),
      later('postgres'),
    );
    assert.deepEqual(
      SQLITE_MIGRATIONS.filter((m) => m.version > LAST_LEGACY_STEP).map((m) => m.version),
      later('sqlite'),
    );
    // A next step: the same number on both, its compatibility mapped to each dialect's numbers
    // (a step a dialect has none for names the step before it there).
    const last = SCHEMA_STEPS.at(-1)?.version ?? 0;
    const next: SchemaStep = { version: last + 1, name: 'next', compatibleFrom: last };
    const withNext = (sql: DialectSteps) => ({ ...sql, next: { sql: 'SELECT 1' } }) as DialectSteps;
    const pg = migrationsFor('postgres', withNext(POSTGRES_STEPS), [...SCHEMA_STEPS, next]).at(-1);
    const lite = migrationsFor('sqlite', withNext(SQLITE_STEPS), [...SCHEMA_STEPS, next]).at(-1);
    const ownBefore = (dialect: 'postgres' | 'sqlite') =>
      SCHEMA_STEPS.filter((s) => s.version <= last && !WITHOUT_SQL[dialect]?.includes(s.name)).at(-1)
        ?.version;
    assert.deepEqual([pg?.version, pg?.compatibleFrom], [last + 1, ownBefore('postgres')]);
    assert.deepEqual([lite?.version, lite?.compatibleFrom], [last + 1, ownBefore('sqlite')]);
  });

  void it('refuses a step one dialect has no entry for', () => {
    const last = SCHEMA_STEPS.at(-1)?.version ?? 0;
    const next: SchemaStep = { version: last + 1, name: 'next', compatibleFrom: last };
    assert.throws(
      () => migrationsFor('sqlite', SQLITE_STEPS, [...SCHEMA_STEPS, next]),
      new RegExp(`step ${last + 1} \\(next\\) has no SQL`),
    );
  });
});
