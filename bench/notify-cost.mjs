#!/usr/bin/env node
// What one PostgreSQL notification costs, beside a plain statement of the same shape: the CPU of
// the session that sends it, of a session that LISTENs (as every Baton node's does), and of this
// process, which receives it as a node would. Why a step sends none unless a node may wait for it.
//   node bench/notify-cost.mjs [--count 5000]
import { parseArgs } from 'node:util';

import pg from 'pg';

import { ADMIN_URL } from './lib/pg-admin.mjs';
import { cpuMsOf } from './lib/proc-cpu.mjs';

const { values } = parseArgs({ options: { count: { type: 'string', default: '5000' } } });
const count = Number(values.count);
const CHANNEL = 'baton_notify_cost';

const listener = new pg.Client({ connectionString: ADMIN_URL });
const sender = new pg.Client({ connectionString: ADMIN_URL });
await listener.connect();
await sender.connect();
try {
  await listener.query(`LISTEN ${CHANNEL}`);
  let heard = 0;
  listener.on('notification', () => heard++);
  const pidOf = async (client) => (await client.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
  const pids = { sender: await pidOf(sender), listener: await pidOf(listener) };
  const statements = {
    notify: `SELECT pg_notify('${CHANNEL}', 'run-wake-' || $1)`,
    plain: `SELECT 'run-wake-' || $1`,
  };
  // Twice each, alternating: the first round warms both up.
  for (const kind of ['notify', 'plain', 'notify', 'plain']) {
    const before = {
      sender: cpuMsOf(pids.sender),
      listener: cpuMsOf(pids.listener),
      self: process.cpuUsage(),
    };
    const expected = heard + (kind === 'notify' ? count : 0);
    for (let i = 0; i < count; i++) await sender.query(statements[kind], [String(i % 64)]);
    // Every notification received before the listener answers its next statement.
    await listener.query('SELECT 1');
    if (heard !== expected) throw new Error(`heard ${heard} notifications, expected ${expected}`);
    const self = process.cpuUsage(before.self);
    const us = (ms) => ((ms * 1000) / count).toFixed(1);
    console.log(
      `${kind.padEnd(6)} µs CPU each: sending session ${us(cpuMsOf(pids.sender) - before.sender)}, ` +
        `listening session ${us(cpuMsOf(pids.listener) - before.listener)}, ` +
        `this process ${us((self.user + self.system) / 1000)}`,
    );
  }
} finally {
  await sender.end();
  await listener.end();
}
