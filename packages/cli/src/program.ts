import { readFileSync } from 'node:fs';

import { Command } from 'commander';

import { applyCommand } from './commands/apply.js';
import { checkCommands } from './commands/check.js';
import { queuesCommand } from './commands/queues.js';
import { runCommands } from './commands/runs.js';
import { serverCommands } from './commands/server.js';
import { DEFAULT_URL } from './settings.js';

/** This package's version (dist/src/program.js → package.json). */
function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version?: string;
  };
  return pkg.version ?? 'unknown';
}

/** The `baton` command line: every subcommand with its options and help. */
export function buildProgram(): Command {
  const program = new Command('baton')
    .description(
      'Baton workflow engine: run the server, apply definitions, start and follow runs, look at queues',
    )
    .version(version(), '-V, --version')
    .option('-s, --server <url>', `server URL (default BATON_URL or ${DEFAULT_URL})`)
    .option('--json', 'machine-readable JSON output')
    .showHelpAfterError()
    // Set before the subcommands are added, so they inherit it: usage errors come back to main.
    .exitOverride()
    .configureOutput({ outputError: (text, write) => write(text) });
  serverCommands(program);
  applyCommand(program);
  runCommands(program);
  queuesCommand(program);
  checkCommands(program);
  program.addHelpText(
    'after',
    `
Credentials: BATON_TOKEN (a bearer token) or BATON_KEY_ID + BATON_KEY_SECRET (an application key).
Exit codes: 0 ok, 1 error, 2 usage; a waited-on run: 3 FAILED, 4 TIMED_OUT, 5 TERMINATED, 6 still open.`,
  );
  return program;
}
