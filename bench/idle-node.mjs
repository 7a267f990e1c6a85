#!/usr/bin/env node
// What a Baton node costs while nothing happens: one node on a fresh PostgreSQL database, no
// runs and no workers. After a settling time it measures, over a window, the transactions its
// database counts (pg_stat_database: commits and rollbacks, autocommit statements included) and
// the node's CPU (/proc). Every node of a cluster pays this all the time, busy or not.
//   node bench/idle-node.mjs [--seconds 20] [--settle 8]
// Run `npx tsc -b` first.
import { parseArgs } from 'node:util';

import pg from 'pg';

import { startBaton } from './lib/baton-server.mjs';
import { machineFacts } from './lib/machine.mjs';
import { databaseName, dropDatabase, freshDatabase } from './lib/pg-admin.mjs';
import { cpuMsOf } from './lib/proc-cpu.mjs';

const { values } = parseArgs({
  options: { seconds: { type: 'string', default: '20' }, settle: { type: 'string', default: '8' } },
});
const seconds = Number(values.seconds);
const settle = Number(values.settle);
const sleep = (s) => new Promise((resolve) => setTimeout(resolve, s * 1000));

const url = await freshDatabase('baton_idle');
const server = await startBaton({ databaseUrl: url });
const admin = new pg.Client({ connectionString: url });
await admin.connect();
const transactions = async () => {
  // The statistics a backend reports reach the view when it is idle; the settle time covers it.
  await admin.query('SELECT pg_stat_clear_snapshot()');
  const { rows } = await admin.query(
    'SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = $1',
    [databaseName('baton_idle')],
  );
  return Number(rows[0]?.n ?? 0);
};
let result;
try {
  await sleep(settle);
  const [tx0, cpu0] = [await transactions(), cpuMsOf(server.pid)];
  await sleep(seconds);
  const [tx1, cpu1] = [await transactions(), cpuMsOf(server.pid)];
  // This client's own two reads are in the count; take them out.
  result = { transactions: tx1 - tx0 - 2, cpuMs: (cpu1 ?? 0) - (cpu0 ?? 0) };
} finally {
  await admin.end();
  await server.stop();
  await dropDatabase('baton_idle');
}
const facts = await machineFacts();
console.log(`${facts.cpuModel} × ${facts.cpuCount}, ${facts.postgres}`);
console.log(
  `idle node on PostgreSQL, ${seconds} s: ${result.transactions} transactions ` +
    `(${(result.transactions / seconds).toFixed(1)}/s), node CPU ${result.cpuMs.toFixed(0)} ms ` +
    `(${((result.cpuMs / (seconds * 1000)) * 100).toFixed(1)} % of a core)`,
);
