#!/usr/bin/env node
import { CommanderError } from 'commander';

import { explain } from './errors.js';
import { EXIT } from './output.js';
import { buildProgram } from './program.js';

/** The `baton` bin: parse, run, and turn any failure into a clear message and an exit code. */
async function main(): Promise<void> {
  const program = buildProgram();
  try {
    await program.parseAsync(process.argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      // Help and version are "errors" to commander; usage mistakes were already printed.
      process.exitCode = err.exitCode === 0 ? EXIT.ok : EXIT.usage;
      return;
    }
    const { message, code } = explain(err);
    process.stderr.write(`baton: ${message}\n`);
    process.exitCode = code;
  }
}

// `baton runs | head`: the reader went away; that is not an error.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw err;
});

void main();
