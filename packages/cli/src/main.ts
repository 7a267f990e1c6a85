#!/usr/bin/env node
import { CommanderError } from 'commander';

import { explain } from './errors.js';
import { EXIT } from './output.js';
import { buildProgram, jsonWanted } from './program.js';

/** The `baton` bin: parse, run, and turn any failure into a clear message and an exit code. */
async function main(): Promise<void> {
  const program = buildProgram();
  const json = jsonWanted(process.argv);
  try {
    await program.parseAsync(process.argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      // Help and version are "errors" to commander; usage mistakes were already printed (as text).
      const code = err.exitCode === 0 ? EXIT.ok : EXIT.usage;
      if (json && code !== EXIT.ok) writeJsonError({ message: commanderMessage(err), code });
      process.exitCode = code;
      return;
    }
    const explained = explain(err);
    if (json) writeJsonError(explained);
    else process.stderr.write(`baton: ${explained.message}\n`);
    process.exitCode = explained.code;
  }
}

/** `error: unknown option '--x'` → `unknown option '--x'`. */
function commanderMessage(err: CommanderError): string {
  return err.message.replace(/^error: /, '');
}

/** With --json a failure is one JSON object on stderr; stdout stays for results. */
function writeJsonError(explained: ReturnType<typeof explain>): void {
  const { message, code, ...details } = explained;
  process.stderr.write(`${JSON.stringify({ error: { message, exitCode: code, ...details } })}\n`);
}

// `baton runs | head`: the reader went away; that is not an error.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw err;
});

void main();
