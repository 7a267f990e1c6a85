// The room map: the one table of what each part of the code holds, which floor it stands on and
// what it may import. Everything else about imports is read from here: the `no-restricted-imports`
// rules in eslint.config.js, the check over the import graph (scripts/check-rooms.mjs, part of
// `npm run lint`) and the "Packages" table in docs/ARCHITECTURE.md, which that check regenerates
// (`--write`) or compares.
//
// A room is a directory directly under packages/server/src, a group of files there, or a package.
// An import may only go to a room on a lower floor that the importing room lists; a room that is
// not here fails the check, and a room named here that does not exist yet is skipped.

const SERVER = 'packages/server/src';

/**
 * @typedef {object} Room
 * @property {string} name
 * @property {number} floor      lower floors never import higher ones
 * @property {string} holds      one line: what the room holds
 * @property {string[]} mayImport rooms it may import (each on a lower floor)
 * @property {string} [dir]      its directory, for a directory room
 * @property {string[]} [files]  its files, for a room of loose files under packages/server/src
 * @property {string} [pkg]      its package name, for a package room (`@baton/...`)
 * @property {string} [why]      why an import that may look wrong is right
 * @property {Array<{ group: string[], message: string }>} [forbidden] library imports it refuses
 */

/** @type {Room[]} */
export const ROOMS = [
  {
    name: 'protocol',
    floor: 0,
    pkg: '@baton/protocol',
    dir: 'packages/protocol/src',
    holds: 'wire types: definitions, run and task records, statuses, error body',
    mayImport: [],
  },
  {
    name: 'objects',
    floor: 0,
    files: ['copy-with.ts'],
    holds: 'the object copy that keeps one hidden class per shape, pure enough for the interpreter',
    mayImport: [],
  },
  {
    name: 'kernel',
    floor: 1,
    files: [
      'clock.ts',
      'control-flow-error.ts',
      'errors.ts',
      'error-messages.ts',
      'ids.ts',
      'key-file.ts',
      'metrics.ts',
    ],
    holds:
      'the clock, the error class, the errors that only steer, the message of every registered error code, ids, key files of the data dir, the metrics registry',
    mayImport: ['protocol'],
  },
  {
    name: 'bounds',
    floor: 1,
    dir: `${SERVER}/bounds`,
    holds: 'the bounds policy: ranges, JSON depth/size/text checks, storable times',
    mayImport: ['protocol'],
  },
  {
    name: 'queue',
    floor: 1,
    dir: `${SERVER}/queue`,
    holds: 'the wake bus: long polls and waiting callers woken after a commit',
    mayImport: ['protocol'],
  },
  {
    name: 'sdk',
    floor: 1,
    pkg: '@baton/sdk',
    dir: 'packages/sdk/src',
    holds: '`@baton/sdk`: typed client from /api/openapi.json, builders, worker runner',
    mayImport: ['protocol'],
  },
  {
    name: 'ui',
    floor: 1,
    dir: 'packages/ui/src',
    holds: 'the web UI (React, Vite), served at `/`; it reaches the server through `/api` only',
    mayImport: ['protocol'],
  },
  {
    name: 'config',
    floor: 2,
    dir: `${SERVER}/config`,
    holds: 'the only reader of `process.env`: validated, frozen options (blob and auth settings included)',
    mayImport: ['kernel', 'objects', 'bounds', 'protocol'],
  },
  {
    name: 'engine',
    floor: 2,
    dir: `${SERVER}/engine`,
    holds:
      'the pure interpreter: `decide`, expressions, registration checks, task kinds; `index.ts` is its surface',
    mayImport: ['objects', 'bounds', 'protocol'],
    why: 'bounds is the pure policy of ranges the registration checks apply',
    forbidden: [
      { group: ['node:*', 'fs', 'path', 'http', 'net', 'child_process'], message: 'engine is pure: no I/O' },
      { group: ['pg', 'better-sqlite3', 'fastify'], message: 'engine is pure: no drivers' },
    ],
  },
  {
    name: 'blobs',
    floor: 3,
    dir: `${SERVER}/blobs`,
    holds: 'the `BlobStore` port: a directory or an S3 bucket; the /health probe',
    mayImport: ['config', 'kernel', 'objects', 'protocol'],
  },
  {
    name: 'scripting',
    floor: 3,
    dir: `${SERVER}/scripting`,
    holds: "the script sandbox behind the engine's `ScriptRunner` port: QuickJS and jq on worker threads",
    mayImport: ['engine', 'bounds', 'kernel', 'objects', 'protocol'],
  },
  {
    name: 'store',
    floor: 3,
    dir: `${SERVER}/store`,
    holds: 'the store ports (`Store`, `Tx`) and what both stores share: rows, SQL helpers, faults',
    mayImport: ['engine', 'config', 'bounds', 'kernel', 'objects', 'protocol'],
    why: "the decide set is read from the engine's expression references (pure functions only)",
  },
  {
    name: 'store-sqlite',
    floor: 4,
    dir: `${SERVER}/store-sqlite`,
    holds: 'the SQLite store and its migrations',
    mayImport: ['store', 'engine', 'config', 'bounds', 'kernel', 'objects', 'protocol'],
  },
  {
    name: 'store-postgres',
    floor: 4,
    dir: `${SERVER}/store-postgres`,
    holds: 'the PostgreSQL store, its migrations, notifications and peer presence',
    mayImport: ['store', 'engine', 'config', 'bounds', 'kernel', 'objects', 'protocol'],
  },
  {
    name: 'backup',
    floor: 4,
    dir: `${SERVER}/backup`,
    holds: '`baton backup`: a consistent copy of a live SQLite database (online backup API)',
    mayImport: ['config', 'kernel', 'objects', 'protocol'],
  },
  {
    name: 'auth',
    floor: 4,
    dir: `${SERVER}/auth`,
    holds: 'tokens, route groups and roles, worker scope, application keys, authorship, the secret cipher',
    mayImport: ['store', 'config', 'kernel', 'objects', 'protocol'],
  },
  {
    name: 'search',
    floor: 4,
    dir: `${SERVER}/search`,
    holds: "Conductor's query expression (parser) and task search",
    mayImport: ['store', 'kernel', 'objects', 'protocol'],
  },
  {
    name: 'payloads',
    floor: 4,
    dir: `${SERVER}/payloads`,
    holds: 'external payloads: signed URLs, the inline limit, reading uploads',
    mayImport: ['blobs', 'kernel', 'bounds', 'objects', 'protocol'],
  },
  {
    name: 'archive',
    floor: 4,
    dir: `${SERVER}/archive`,
    holds: 'the archiver, reading archived runs, removal',
    mayImport: ['store', 'blobs', 'kernel', 'objects', 'protocol'],
  },
  {
    name: 'instructions',
    floor: 4,
    dir: `${SERVER}/instructions`,
    holds: 'named, versioned instruction texts; the names a definition reads',
    mayImport: ['store', 'engine', 'bounds', 'kernel', 'objects', 'protocol'],
  },
  {
    name: 'handout',
    floor: 5,
    dir: `${SERVER}/handout`,
    holds: "giving tasks to workers: type limits, direct hand-off, the hand-out's timers, polls and liveness",
    mayImport: ['store', 'engine', 'kernel', 'objects', 'protocol'],
  },
  {
    name: 'decisions',
    floor: 6,
    dir: `${SERVER}/decisions`,
    holds: 'load state → `decide` → apply, in one transaction: the decision applier and what it writes',
    mayImport: ['handout', 'instructions', 'scripting', 'store', 'engine', 'kernel', 'objects', 'protocol'],
  },
  {
    name: 'views',
    floor: 7,
    dir: `${SERVER}/views`,
    holds: 'read views: why a task waits, how a system call is described',
    mayImport: ['handout', 'store', 'engine', 'bounds', 'kernel', 'objects', 'protocol'],
  },
  {
    name: 'loops',
    floor: 7,
    dir: `${SERVER}/loops`,
    holds: 'background loops: the timer loop, lapsed locks, the virtual timers of test runs',
    mayImport: ['decisions', 'queue', 'store', 'engine', 'kernel', 'objects', 'protocol'],
  },
  {
    name: 'tracing',
    floor: 7,
    dir: `${SERVER}/tracing`,
    holds:
      'OpenTelemetry: run and task-attempt spans from stored times, server and client spans, trace context',
    mayImport: ['decisions', 'store', 'engine', 'config', 'kernel', 'objects', 'protocol'],
    why: 'decisions: a run span is built from the run and tasks a decision applied',
  },
  {
    name: 'operations',
    floor: 8,
    dir: `${SERVER}/operations`,
    holds: 'application services: workflows, tasks, metadata, run control, test runs, repairs, sync execute',
    mayImport: [
      'views',
      'loops',
      'decisions',
      'handout',
      'archive',
      'auth',
      'scripting',
      'queue',
      'store-sqlite',
      'store',
      'engine',
      'bounds',
      'kernel',
      'objects',
      'protocol',
    ],
    why: 'auth: definitions record who wrote them (authorship) and a task names who may act on it; store-sqlite: a test run runs in an in-memory SQLite store of its own',
  },
  {
    name: 'integrations',
    floor: 9,
    dir: `${SERVER}/integrations`,
    holds:
      'calls the engine makes itself: the `CallHandler` port, the system-task executor, HTTP, AI, documents',
    mayImport: [
      'tracing',
      'operations',
      'views',
      'auth',
      'payloads',
      'blobs',
      'queue',
      'store',
      'engine',
      'config',
      'bounds',
      'kernel',
      'objects',
      'protocol',
    ],
    why: 'operations: the system-task executor ends its tasks through the task service, as a worker would',
  },
  {
    name: 'events',
    floor: 9,
    dir: `${SERVER}/events`,
    holds: 'brokers behind `Broker`, handlers, inbox, outbox relay, lifecycle events, their routes',
    mayImport: [
      'operations',
      'decisions',
      'auth',
      'scripting',
      'queue',
      'store',
      'engine',
      'config',
      'bounds',
      'kernel',
      'objects',
      'protocol',
    ],
    why: 'auth: handlers record who wrote them; events start and act on runs through operations',
  },
  {
    name: 'schedules',
    floor: 9,
    dir: `${SERVER}/schedules`,
    holds: 'cron (croner), schedules fired from the timer table, one run per slot, their routes',
    mayImport: ['decisions', 'auth', 'queue', 'store', 'kernel', 'objects', 'protocol'],
    why: 'auth: schedules record who wrote them',
  },
  {
    name: 'http',
    floor: 10,
    dir: `${SERVER}/http`,
    holds: 'the Fastify app, JSON schemas of every route, error mapping, the web UI files',
    mayImport: [
      'tracing',
      'integrations',
      'events',
      'schedules',
      'operations',
      'archive',
      'auth',
      'instructions',
      'payloads',
      'search',
      'store',
      'engine',
      'config',
      'bounds',
      'kernel',
      'objects',
      'protocol',
    ],
    why: "integrations: its routes (secrets, the service registry, AI providers) are listed in http's one table of route modules",
  },
  {
    name: 'processes',
    floor: 1,
    dir: `${SERVER}/processes`,
    holds:
      '`BATON_PROCESSES`: the primary forks node processes on one port, replaces one that dies, stops all on a signal',
    mayImport: [],
  },
  {
    name: 'entry',
    floor: 11,
    files: ['server.ts', 'main.ts', 'migrate.ts', 'open-store.ts'],
    holds:
      'assembly and entry points: `startServer` wires every room; `main` and `migrate` read the options; `openStore` picks the store',
    mayImport: [
      'tracing',
      'http',
      'events',
      'schedules',
      'integrations',
      'operations',
      'loops',
      'views',
      'decisions',
      'handout',
      'archive',
      'auth',
      'instructions',
      'payloads',
      'search',
      'processes',
      'store-sqlite',
      'store-postgres',
      'store',
      'scripting',
      'blobs',
      'engine',
      'config',
      'queue',
      'bounds',
      'kernel',
      'objects',
      'protocol',
    ],
    why: 'store-sqlite and store-postgres: the entry points open the store the options name',
  },
  {
    name: 'cli',
    floor: 12,
    dir: 'packages/cli/src',
    pkg: '@baton/cli',
    holds: 'the `baton` command: `server`, `migrate`, `backup`, and the rest over HTTP through the SDK',
    mayImport: ['sdk', 'entry', 'backup', 'protocol'],
  },
];

/** The room a bare `@baton/...` specifier names (the server's package entries map to their rooms). */
export function roomOfPackageImport(specifier) {
  if (
    specifier === '@baton/server' ||
    specifier === '@baton/server/main' ||
    specifier === '@baton/server/migrate'
  )
    return 'entry';
  if (specifier === '@baton/server/backup') return 'backup';
  const room = ROOMS.find(
    (r) => r.pkg !== undefined && (specifier === r.pkg || specifier.startsWith(`${r.pkg}/`)),
  );
  return room?.name;
}

/** The room a repository path (posix, relative to the root) belongs to, or undefined if none. */
export function roomOfPath(file) {
  for (const room of ROOMS) {
    if (room.dir !== undefined && file.startsWith(`${room.dir}/`)) return room.name;
    if (room.files !== undefined && room.files.some((f) => file === `${SERVER}/${f}`)) return room.name;
  }
  return undefined;
}

/** Files outside the engine that reach past engine/index.ts: none. */
export const ENGINE_SURFACE_EXCEPTIONS = [];

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** What a relative import leaving a server room may name, as regular-expression alternatives. */
function serverTargets(room, pastEngineSurface) {
  const alternatives = [];
  for (const name of [room.name, ...room.mayImport]) {
    const target = ROOMS.find((r) => r.name === name);
    if (target?.files !== undefined)
      alternatives.push(...target.files.map((f) => `${escape(f.replace(/\.ts$/, '.js'))}$`));
    else if (target?.dir?.startsWith(`${SERVER}/`)) {
      const dir = target.dir.slice(SERVER.length + 1);
      // Past the engine's surface only from inside the engine.
      alternatives.push(
        name === 'engine' && room.name !== 'engine' && !pastEngineSurface ? 'engine/index\\.js$' : `${dir}/`,
      );
    }
  }
  return alternatives;
}

/** What a `@baton/...` import of the room may name after `@baton/`. */
function packageTargets(room) {
  const alternatives = [];
  for (const name of room.mayImport) {
    const target = ROOMS.find((r) => r.name === name);
    if (target?.pkg !== undefined) alternatives.push(`${escape(target.pkg.slice('@baton/'.length))}(?:/|$)`);
    if (name === 'entry') alternatives.push('server(?:/main|/migrate)?$');
    if (name === 'backup') alternatives.push('server/backup$');
  }
  return alternatives;
}

const MAX_DEPTH = 5;

/**
 * The `no-restricted-imports` blocks of eslint.config.js, one per room and directory depth: a
 * relative import that leaves the room climbs exactly as many `../` as the file is deep, so the
 * pattern can tell which room it lands in (a sub-directory such as integrations/http is no room).
 */
export function restrictedImportBlocks() {
  const blocks = [];
  const message = (room) =>
    `${room.name} may import only: ${room.mayImport.join(', ') || 'nothing'} (scripts/rooms.mjs; docs/ARCHITECTURE.md, "Packages and rooms")`;
  const rule = (room, extra) => [
    'error',
    {
      patterns: [
        ...(room.forbidden ?? []),
        ...extra,
        {
          regex: `^@baton/(?!${packageTargets(room).join('|') || '$^'})`,
          message: message(room),
        },
      ],
    },
  ];
  for (const room of ROOMS) {
    if (room.dir?.startsWith(`${SERVER}/`)) {
      for (let depth = 0; depth < MAX_DEPTH; depth++) {
        const inner = '*/'.repeat(depth);
        const up = '\\.\\./'.repeat(depth + 1);
        const files = [`${room.dir}/${inner}*.ts`];
        const leave = (past) => ({
          regex: `^${up}(?!${serverTargets(room, past).join('|')})`,
          message: message(room),
        });
        blocks.push({
          files,
          ignores: ENGINE_SURFACE_EXCEPTIONS,
          rules: { 'no-restricted-imports': rule(room, [leave(false)]) },
        });
        const exceptions = ENGINE_SURFACE_EXCEPTIONS.filter(
          (f) => f.startsWith(`${room.dir}/${inner}`) && f.split('/').length === files[0].split('/').length,
        );
        if (exceptions.length > 0)
          blocks.push({ files: exceptions, rules: { 'no-restricted-imports': rule(room, [leave(true)]) } });
      }
    } else if (room.files !== undefined) {
      const leave = { regex: `^\\./(?!${serverTargets(room, false).join('|')})`, message: message(room) };
      blocks.push({
        files: room.files.map((f) => `${SERVER}/${f}`),
        rules: { 'no-restricted-imports': rule(room, [leave]) },
      });
    } else if (room.dir !== undefined) {
      blocks.push({
        files: [`${room.dir}/**/*.ts`, `${room.dir}/**/*.tsx`],
        rules: { 'no-restricted-imports': rule(room, []) },
      });
    }
  }
  return blocks;
}
