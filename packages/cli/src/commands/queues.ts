import type { Command } from 'commander';

import { duration, paint, print, printJson, table } from '../output.js';
import { clientFrom, type GlobalOptions } from '../settings.js';

export function queuesCommand(program: Command): void {
  program
    .command('queues')
    .description(
      'worker queues: waiting, scheduled, in flight, dead-lettered, and whether a worker polls them',
    )
    .action(async (_opts: unknown, cmd: Command) => {
      const globals = cmd.optsWithGlobals<GlobalOptions>();
      const sizes = await clientFrom(globals).queueSizes();
      if (globals.json) return printJson(sizes);
      const names = Object.keys(sizes).sort();
      if (names.length === 0) return print('no queues (register a task definition to make one)');
      const now = Date.now();
      print(
        table(
          ['QUEUE', 'WAITING', 'SCHEDULED', 'IN FLIGHT', 'DEAD', 'WORKERS', 'LAST POLL'],
          names.map((name) => {
            const q = sizes[name]!;
            const workers =
              (q.activeWorkers ?? 0) > 0
                ? paint(String(q.activeWorkers), 'green')
                : paint('none', q.waiting > 0 ? 'red' : 'grey');
            return [
              name,
              String(q.waiting),
              String(q.scheduled),
              String(q.inFlight),
              q.deadLettered > 0 ? paint(String(q.deadLettered), 'red') : '0',
              workers,
              q.lastPollTime !== undefined ? `${duration(now - q.lastPollTime)} ago` : 'never',
            ];
          }),
        ),
      );
    });
}
