import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { POSTGRES_MIGRATIONS } from '../../src/store-postgres/migrations.js';
import { SQLITE_MIGRATIONS } from '../../src/store-sqlite/migrations.js';
import { checkMigrationList, pendingMigrations } from '../../src/store/schema-versions.js';
import type { Migration } from '../../src/store/sql-common.js';

/**
 * Expand-then-contract, as far as a test can see it (store/ARCHITECTURE.md, "Schema migrations"):
 * a step released after the rule took effect either only adds (no statement below), or is marked
 * `contract` and released once no running node reads what it removes.
 */

/** The last step of each list written before steps declared their compatibility. */
const BEFORE_THE_RULE = { postgres: 11, sqlite: 10 } as const;

/** Statements that remove or reshape what a node of the previous release may read or write. */
const NOT_EXPAND: ReadonlyArray<[RegExp, string]> = [
  [/\bDROP\s+(TABLE|COLUMN|INDEX|VIEW|FUNCTION|TRIGGER|TYPE|SCHEMA|SEQUENCE|CONSTRAINT|DEFAULT)\b/i, 'drops'],
  [/\bRENAME\b/i, 'renames'],
  [/\bALTER\s+COLUMN\b/i, 'alters a column (type, NOT NULL, default)'],
  [/\b(TRUNCATE|DELETE\s+FROM)\b/i, 'deletes rows'],
  [/\bADD\s+(CONSTRAINT|PRIMARY|UNIQUE|CHECK|FOREIGN)\b/i, 'adds a constraint older writes may break'],
  [/\bCREATE\s+UNIQUE\s+INDEX\b/i, 'adds a uniqueness older writes may break'],
  [/\bCREATE\s+(OR\s+REPLACE\s+)?(TRIGGER|FUNCTION|RULE)\b|\bOR\s+REPLACE\b/i, 'changes behaviour of writes'],
];

/**
 * A non-unique index dropped: no statement of an earlier release names an index or needs a
 * non-unique one to succeed (only a unique index can be an `ON CONFLICT` arbiter), so dropping one
 * only changes plans. An index counts as non-unique when the last statement before the drop that
 * made an index of that name (in `made`: the SQL of the steps before, then this step's) made it
 * without UNIQUE. Such drops are left out of the check.
 */
function withoutNonUniqueIndexDrops(code: string, earlier: string): string {
  return code.replace(/\bDROP\s+INDEX\s+(?:IF\s+EXISTS\s+)?(\w+)\s*;/gi, (drop, name: string, at: number) => {
    const made = `${earlier}\n${code.slice(0, at)}`;
    const creations = [
      ...made.matchAll(new RegExp(`\\bCREATE\\s+(UNIQUE\\s+)?INDEX\\s+${name}\\s+ON\\b`, 'gi')),
    ];
    const last = creations.at(-1);
    return last !== undefined && last[1] === undefined ? '' : drop;
  });
}

/** Problems of one step's SQL as an expand-only step (comments left out); `earlier`: the SQL of the steps before it. */
function expandProblems(sql: string, earlier = ''): string[] {
  const code = withoutNonUniqueIndexDrops(sql.replace(/--[^\n]*/g, ''), earlier.replace(/--[^\n]*/g, ''));
  const problems = NOT_EXPAND.filter(([re]) => re.test(code)).map(([, what]) => what);
  // A new NOT NULL column without a default fails every insert of a node that does not know it.
  for (const clause of code.match(/\bADD\s+COLUMN\b[^,;]*/gi) ?? [])
    if (/\bNOT\s+NULL\b/i.test(clause) && !/\bDEFAULT\b/i.test(clause))
      problems.push(`adds a NOT NULL column without a default (${clause.trim()})`);
  return problems;
}

for (const [dialect, list] of [
  ['postgres', POSTGRES_MIGRATIONS],
  ['sqlite', SQLITE_MIGRATIONS],
] as const) {
  void describe(`the ${dialect} migration list`, () => {
    void it('increases, and every step declares a compatibility in range', () => {
      assert.equal(checkMigrationList(list), list.at(-1)?.version);
    });

    void it('steps after the rule only add, or are marked contract with a compatibility after the step before them', () => {
      const ruled = list.filter((m) => m.version > BEFORE_THE_RULE[dialect]);
      assert.ok(ruled.length > 0, 'at least the compatibility bookkeeping is ruled');
      for (const m of ruled) {
        if (m.contract === true) {
          // A contract step breaks the code of the schema just before it, by definition.
          const before = list.filter((o) => o.version < m.version).at(-1)?.version ?? 0;
          assert.ok(
            m.compatibleFrom > before,
            `contract step ${m.version} (${m.name}) must declare compatibleFrom > ${before}`,
          );
          continue;
        }
        assert.ok(
          m.compatibleFrom < m.version,
          `expand step ${m.version} (${m.name}) must declare an earlier schema it stays compatible with`,
        );
        if (m.reviewedStatements !== undefined) {
          // A reviewed step still has to name what the check flags, and nothing it removes.
          const problems = expandProblems(m.sql);
          assert.ok(problems.length > 0, `step ${m.version} (${m.name}) is reviewed but nothing is flagged`);
          assert.ok(
            !problems.includes('drops') && !problems.includes('renames'),
            `step ${m.version} drops or renames`,
          );
          continue;
        }
        const earlier = list
          .filter((o) => o.version < m.version)
          .map((o) => o.sql)
          .join('\n');
        assert.deepEqual(
          expandProblems(m.sql, earlier),
          [],
          `step ${m.version} (${m.name}) is not expand-only`,
        );
      }
    });
  });
}

void describe('the expand-only check', () => {
  void it('flags what breaks an older node and lets additions through', () => {
    assert.deepEqual(expandProblems('CREATE TABLE t (a INTEGER);\nCREATE INDEX t_a ON t (a);'), []);
    assert.deepEqual(expandProblems("ALTER TABLE t ADD COLUMN b TEXT NOT NULL DEFAULT 'x'"), []);
    assert.deepEqual(expandProblems('-- DROP TABLE t is for a later release\nSELECT 1'), []);
    assert.deepEqual(expandProblems('ALTER TABLE t DROP COLUMN a'), ['drops']);
    // Dropping an index made without UNIQUE (before, or again in the same step) only changes plans.
    assert.deepEqual(expandProblems('DROP INDEX t_a;', 'CREATE INDEX t_a ON t (a);'), []);
    assert.deepEqual(
      expandProblems('DROP INDEX t_a;\nCREATE INDEX t_a ON t (a) WHERE b;', 'CREATE INDEX t_a ON t (a);'),
      [],
    );
    assert.deepEqual(expandProblems('DROP INDEX t_a;'), ['drops']);
    assert.deepEqual(expandProblems('DROP INDEX t_a;', 'CREATE UNIQUE INDEX t_a ON t (a);'), ['drops']);
    assert.deepEqual(
      expandProblems(
        'DROP INDEX t_a;',
        'CREATE INDEX t_a ON t (a);\nDROP INDEX t_a;\nCREATE UNIQUE INDEX t_a ON t (a);',
      ),
      ['drops'],
    );
    assert.deepEqual(expandProblems('DROP INDEX t_b;', 'CREATE INDEX t_a ON t (a);'), ['drops']);
    assert.deepEqual(expandProblems('ALTER TABLE t RENAME COLUMN a TO b'), ['renames']);
    assert.deepEqual(expandProblems('ALTER TABLE t ALTER COLUMN a TYPE BIGINT'), [
      'alters a column (type, NOT NULL, default)',
    ]);
    assert.deepEqual(expandProblems('ALTER TABLE t ADD COLUMN b TEXT NOT NULL'), [
      'adds a NOT NULL column without a default (ADD COLUMN b TEXT NOT NULL)',
    ]);
    assert.deepEqual(expandProblems('CREATE UNIQUE INDEX t_b ON t (b)'), [
      'adds a uniqueness older writes may break',
    ]);
  });
});

void describe('which steps a starting node applies', () => {
  const step = (version: number, compatibleFrom: number, contract?: true): Migration => ({
    version,
    name: `s${version}`,
    sql: '',
    compatibleFrom,
    ...(contract && { contract }),
  });
  const known = [step(1, 1), step(2, 2), step(4, 2)];
  const applied = (...rows: Array<[number, number | null]>) =>
    rows.map(([version, compatibleFrom]) => ({ version, compatibleFrom }));

  void it('applies every missing step in order, gaps in the numbering included', () => {
    assert.deepEqual(
      pendingMigrations('SQLite', known, []).map((m) => m.version),
      [1, 2, 4],
    );
    assert.deepEqual(
      pendingMigrations('SQLite', known, applied([1, null], [4, 2])).map((m) => m.version),
      [2],
    );
    assert.deepEqual(pendingMigrations('SQLite', known, applied([1, 1], [2, 2], [4, 2])), []);
  });

  void it('starts on a newer schema whose unknown steps all declare compatibility with its latest', () => {
    assert.deepEqual(
      pendingMigrations('PostgreSQL', known, applied([1, 1], [2, 2], [4, 2], [5, 4], [6, 2])),
      [],
    );
  });

  void it('refuses, in one line naming both versions and what to do, a newer step it is not compatible with', () => {
    assert.throws(
      () => pendingMigrations('PostgreSQL', known, applied([1, 1], [2, 2], [4, 2], [5, 4], [7, 5])),
      (err: Error) => {
        assert.equal(
          err.message,
          "the PostgreSQL database has schema version 7, newer than this Baton's 4, and its step 7 needs a Baton " +
            'of schema 5 or later: upgrade this node to a release that knows schema 7; refusing to start.',
        );
        return true;
      },
    );
    // A step recorded without a declaration claims nothing.
    assert.throws(
      () => pendingMigrations('SQLite', known, applied([1, 1], [2, 2], [4, 2], [5, null])),
      /schema version 5, newer than this Baton's 4, and its step 5 needs a Baton of schema 5 or later/,
    );
  });

  void it('refuses a newer schema that lacks one of its own steps', () => {
    assert.throws(
      () => pendingMigrations('SQLite', known, applied([1, 1], [2, 2], [5, 2])),
      /schema version 5, newer than this Baton's 4, yet lacks this node's step 4/,
    );
  });

  void it('refuses a list out of order or with a compatibility out of range', () => {
    assert.throws(() => checkMigrationList([step(2, 1), step(2, 2)]), /out of order/);
    assert.throws(() => checkMigrationList([step(1, 2)]), /compatibleFrom 2: it must lie in 1..1/);
  });
});
