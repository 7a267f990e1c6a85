#!/usr/bin/env node
// First: V8's tier-up budget, before the server's modules run (processes/tier-up-budget.ts).
import './processes/tier-up.js';

import cluster from 'node:cluster';

import { pino } from 'pino';

import { processIndex, processIndexEnv, readEnv, type RawEnv, unknownSettings } from './config/env.js';
import { compileOptions, ConfigError, type Options } from './config/options.js';
import { describeStartFailure } from './config/start-failure.js';
import { coerceError } from './errors.js';
import { ProcessGroup } from './processes/process-group.js';
import { createServer } from './server.js';
import { listenForStartUpProbes, type StartUpProbes } from './http/start-up-probes.js';
import { openStore } from './open-store.js';
import { SchemaVersionError } from './store/schema-versions.js';
import { startWait, whileDatabaseAway } from './store/database-wait.js';

/**
 * Process entry: settings from the environment, start, and stop cleanly on SIGTERM/SIGINT.
 * With BATON_PROCESSES above 1 this process is the primary: it migrates the database once,
 * then forks that many node processes (this same entry) sharing the port, and watches them.
 */
async function main(): Promise<void> {
  const index = cluster.isWorker ? processIndex() : undefined;
  // A mistyped setting is otherwise silently ignored: say so (once, from the primary).
  if (index === undefined) {
    for (const { name, suggestion } of unknownSettings()) {
      const meant = suggestion !== undefined ? ` (did you mean ${suggestion}?)` : '';
      process.stderr.write(`baton: warning: ${name} is not a Baton setting${meant}; it is ignored\n`);
    }
  }
  const rawEnv = readEnv();
  let options;
  try {
    options = compileOptions(rawEnv);
  } catch (raw) {
    const err = coerceError(raw);
    process.stderr.write(`baton: ${err instanceof ConfigError ? err.message : err.stack}\n`);
    process.exit(2);
  }
  if (cluster.isPrimary && options.processes > 1) await runPrimary(options);
  else await runNode(options, rawEnv, index);
}

/** One node: the server, listening, until a signal (or, under a primary, the primary's end). */
async function runNode(options: Options, rawEnv: RawEnv, index: number | undefined): Promise<void> {
  // Under a primary, the primary answered the probes while it migrated (runPrimary).
  const probes = index === undefined ? await answerProbes(options) : undefined;
  const server = await startPhase('open', options, () =>
    createServer({ options, rawEnv, ...(index !== undefined && { processIndex: index }) }),
  );
  await probes?.close();
  await startPhase('listen', options, () => server.listen());

  let signals = 0;
  const shutdown = (signal: NodeJS.Signals | 'disconnect'): void => {
    signals += 1;
    if (signals > 1) {
      // Under a primary a terminal's Ctrl-C or a service manager reaches every process and the
      // primary passes it on as well: one stop is enough, and the primary forces a slow one.
      if (index !== undefined) return;
      server.logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    server.logger.info({ signal }, 'stopping');
    const force = setTimeout(() => {
      server.logger.error('graceful stop took too long: exiting');
      process.exit(1);
    }, options.shutdownGraceMs);
    force.unref();
    server.stop().then(
      () => process.exit(0),
      (raw: unknown) => {
        server.logger.error({ err: coerceError(raw) }, 'stop failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
  // The primary gone (killed, crashed): nobody hands this process connections any more.
  if (index !== undefined) process.on('disconnect', () => shutdown('disconnect'));
}

/** The primary of BATON_PROCESSES: migrate once, fork the nodes, pass signals on, exit after them. */
async function runPrimary(options: Options): Promise<void> {
  const logger = pino({ level: options.logLevel, base: { pid: process.pid, role: 'primary' } });
  const probes = await answerProbes(options);
  // Every node migrates on start under a lock; doing it here first means one failure message
  // (database unreachable, schema too new) instead of one per process and restart.
  await startPhase('open', options, async () => {
    const store = await openStore({
      dataDir: options.dataDir,
      poolSize: 1,
      connectTimeoutMs: options.dbConnectTimeoutMs,
      statementTimeoutMs: options.dbStatementTimeoutMs,
      groupCommit: 1,
      ...(options.databaseUrl !== undefined && { databaseUrl: options.databaseUrl }),
    });
    try {
      await whileDatabaseAway(() => store.migrate(), startWait(store.dialect, options.dbStartWaitMs, logger));
    } finally {
      await store.close();
    }
  });
  // The nodes bind the port through the primary: free it first.
  await probes?.close();
  const group = new ProcessGroup({
    count: options.processes,
    logger,
    envFor: processIndexEnv,
    stopGraceMs: options.shutdownGraceMs,
  });
  let signals = 0;
  const shutdown = (signal: NodeJS.Signals): void => {
    signals += 1;
    if (signals > 1) {
      logger.warn({ signal }, 'second signal: killing the node processes');
      group.kill('a second signal');
      return;
    }
    logger.info({ signal }, 'stopping the node processes');
    group.stop();
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
  const code = await group.run();
  logger.info({ code }, 'all node processes stopped');
  process.exit(code);
}

/**
 * The port answers from the start: `/health/live` 200, readiness 503 (http/start-up-probes.ts),
 * until the node serves. Not on port 0: the server would get another port than the probes.
 */
async function answerProbes(options: Options): Promise<StartUpProbes | undefined> {
  if (options.port === 0) return undefined;
  return startPhase('listen', options, () => listenForStartUpProbes(options.port, options.host));
}

/** Runs a start-up step; a failure people can fix is one line naming the setting, then exit 1. */
async function startPhase<T>(phase: 'open' | 'listen', options: Options, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (raw) {
    const line = describeStartFailure(raw, phase, options);
    if (line === undefined) throw raw;
    process.stderr.write(`baton: failed to start: ${line}\n`);
    process.exit(1);
  }
}

main().catch((raw: unknown) => {
  const err = coerceError(raw);
  // A schema this node cannot run on is an operator's situation, told in one line, not a crash.
  const detail = err instanceof SchemaVersionError ? err.message : (err.stack ?? err.message);
  process.stderr.write(`baton: failed to start: ${detail}\n`);
  process.exit(1);
});
