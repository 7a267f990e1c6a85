// CPU time a system spends over a measured interval, counting every process it runs on: the
// harness (its workers, or the whole engine for in-process systems), servers it started, its
// PostgreSQL backends (every backend connected to its database, autovacuum included) and a
// Redis server. Processes are sampled from /proc while the interval runs, so a backend that
// comes and goes in between still counts the time it was last seen with; the harness's own time
// comes from process.cpuUsage(). Linux only: elsewhere only the harness is counted.
import { connect } from 'node:net';

import pg from 'pg';

import { childPidsOf, cpuMsOf } from './proc-cpu.mjs';
import { ADMIN_URL } from './pg-admin.mjs';

const SAMPLE_MS = 200;

export class CpuMeter {
  /**
   * `processes`: [{ name, pid, children? }] of processes the system started (its servers;
   * `children`: their child processes too, found at each sample); `pgDatabase`:
   * the database whose backends are counted; `redisPid`: a Redis server's pid.
   */
  constructor({ processes = [], pgDatabase, redisPid } = {}) {
    this.processes = processes;
    this.pgDatabase = pgDatabase;
    this.redisPid = redisPid;
    /** pid → { part, first, last } */
    this.seen = new Map();
  }

  async start() {
    if (this.pgDatabase) {
      this.admin = new pg.Client({ connectionString: ADMIN_URL });
      await this.admin.connect();
    }
    this.harnessAt = process.cpuUsage();
    await this.sample(true);
    this.timer = setInterval(() => {
      this.pending = this.sample(false).catch(() => {});
    }, SAMPLE_MS);
    return this;
  }

  async sample(initial) {
    const parts = [];
    for (const { name, pid, children } of this.processes) {
      parts.push({ name, pid });
      // A primary's forked node processes (BATON_PROCESSES) count as the server too.
      if (children) for (const child of childPidsOf(pid)) parts.push({ name, pid: child });
    }
    if (this.redisPid) parts.push({ name: 'Redis server', pid: this.redisPid });
    if (this.admin) {
      const { rows } = await this.admin.query('select pid from pg_stat_activity where datname = $1', [
        this.pgDatabase,
      ]);
      for (const { pid } of rows) parts.push({ name: 'PostgreSQL backends', pid });
    }
    for (const { name, pid } of parts) {
      const ms = cpuMsOf(pid);
      if (ms === undefined) continue;
      const entry = this.seen.get(pid);
      // A process first seen after the start began in between: all of its time is the interval's.
      if (entry) entry.last = ms;
      else this.seen.set(pid, { part: name, first: initial ? ms : 0, last: ms });
    }
  }

  /** Ends the interval; answers [{ name, ms }], the harness first. */
  async stop() {
    clearInterval(this.timer);
    await this.pending;
    await this.sample(false);
    const harness = process.cpuUsage(this.harnessAt);
    await this.admin?.end();
    const totals = new Map([['harness (workers)', (harness.user + harness.system) / 1000]]);
    for (const { part, first, last } of this.seen.values())
      totals.set(part, (totals.get(part) ?? 0) + (last - first));
    return [...totals].map(([name, ms]) => ({ name, ms }));
  }
}

/**
 * The pid of the Redis server at `url` (INFO server's process_id), asked over a socket of its
 * own so that no client library's API is relied on; undefined when it cannot be learnt.
 */
export function redisServerPid(url) {
  const { hostname, port, password } = new URL(url);
  const command = (...args) =>
    `*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`;
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port || 6379) });
    let text = '';
    const done = (pid) => {
      socket.destroy();
      resolve(pid);
    };
    socket.setTimeout(5000, () => done(undefined));
    socket.on('error', () => done(undefined));
    socket.on('connect', () =>
      socket.write(
        (password ? command('AUTH', decodeURIComponent(password)) : '') + command('INFO', 'server'),
      ),
    );
    socket.on('data', (chunk) => {
      text += chunk.toString('utf8');
      const match = /process_id:(\d+)/.exec(text);
      if (match) done(Number(match[1]));
    });
  });
}
