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

/**
 * Commands that run here on this machine's settings (BATON_DATA_DIR, BATON_DATABASE_URL), not
 * against a server: `--server` means nothing to them, and `server` prints no answer to put in JSON.
 */
const LOCAL_COMMANDS = new Set(['server', 'migrate', 'backup']);
const NO_JSON = new Set(['server']);

/** The options every command takes, wherever they are written (those that apply to it). */
function addSharedOptions(command: Command, root = false): void {
  const name = command.name();
  if (root || !LOCAL_COMMANDS.has(name))
    command.option('-s, --server <url>', `server URL (default BATON_URL, else ${DEFAULT_URL})`);
  if (root || !NO_JSON.has(name))
    command.option('--json', 'machine-readable JSON output; errors as JSON on stderr');
}

/** Whether the command line asks for JSON (before any `--`), also when parsing it failed. */
export function jsonWanted(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).includes('--json');
}

/** The `baton` command line: every subcommand with its options and help. */
export function buildProgram(): Command {
  const program = new Command('baton')
    .description(
      'Baton workflow engine: run the server, apply definitions, start and follow runs, look at queues',
    )
    .version(version(), '-V, --version', "print baton's own version")
    // Options before a command name are baton's; after it, the command's. So `start --version 1`
    // is the definition's version, not baton's (which `baton --version` prints).
    .enablePositionalOptions()
    // A usage mistake shows the help, except to a script that asked for JSON.
    .showHelpAfterError(!jsonWanted(process.argv))
    // Set before the subcommands are added, so they inherit it: usage errors come back to main.
    .exitOverride()
    .configureOutput({
      // With --json the error goes out as JSON (main); commander's own text would be a second copy.
      outputError: (text, write) => {
        if (!jsonWanted(process.argv)) write(text);
      },
    });
  addSharedOptions(program, true);
  serverCommands(program);
  applyCommand(program);
  runCommands(program);
  queuesCommand(program);
  checkCommands(program);
  // --server and --json work before or after the command name: every command takes them too.
  for (const command of program.commands) addSharedOptions(command);
  program.addHelpText(
    'after',
    `
Credentials: BATON_TOKEN (a bearer token) or BATON_KEY_ID + BATON_KEY_SECRET (an application key).
Exit codes: 0 ok, 1 error, 2 usage; a waited-on run: 3 FAILED, 4 TIMED_OUT, 5 TERMINATED, 6 still open.`,
  );
  return program;
}
