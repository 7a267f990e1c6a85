#!/usr/bin/env node
import { readEnv, unknownSettings } from './config/env.js';
import { compileOptions, ConfigError, type Options } from './config/options.js';
import { describeStartFailure } from './config/start-failure.js';
import { coerceError } from './errors.js';
import { createServer } from './server.js';
import { SchemaVersionError } from './store/schema-versions.js';

/** Process entry: settings from the environment, start, and stop cleanly on SIGTERM/SIGINT. */
async function main(): Promise<void> {
  // A mistyped setting is otherwise silently ignored: say so, with the setting meant.
  for (const { name, suggestion } of unknownSettings()) {
    const meant = suggestion !== undefined ? ` (did you mean ${suggestion}?)` : '';
    process.stderr.write(`baton: warning: ${name} is not a Baton setting${meant}; it is ignored\n`);
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
  const server = await startPhase('open', options, () => createServer({ options, rawEnv }));
  await startPhase('listen', options, () => server.listen());

  let signals = 0;
  const shutdown = (signal: NodeJS.Signals): void => {
    signals += 1;
    if (signals > 1) {
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
