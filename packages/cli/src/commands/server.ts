import type { Command } from 'commander';

import { print, printJson } from '../output.js';
import type { GlobalOptions } from '../settings.js';

/**
 * `baton server`, `baton migrate` and `baton backup`: the server package's own entry points, same
 * settings as `npm start`.
 */
export function serverCommands(program: Command): void {
  program
    .command('server')
    .description(
      'run Baton: embedded SQLite in ./data on http://127.0.0.1:8080 unless BATON_* settings say otherwise',
    )
    .action(async () => {
      // The server's process entry reads BATON_* settings and handles SIGTERM/SIGINT itself.
      await import('@baton/server/main');
      await new Promise(() => {}); // runs until the server exits the process
    });

  program
    .command('migrate')
    .description(
      'apply the schema migrations of the configured store (BATON_DATA_DIR or BATON_DATABASE_URL) and exit',
    )
    .action(async (_opts: unknown, cmd: Command) => {
      const { migrateConfiguredStore } = await import('@baton/server/migrate');
      const { store } = await migrateConfiguredStore();
      if (cmd.optsWithGlobals<GlobalOptions>().json) printJson({ migrated: store });
      else print(`migrated: ${store}`);
    });

  program
    .command('backup')
    .description(
      'copy the embedded SQLite database (BATON_DATA_DIR) to a new file, consistently, even while a server writes it',
    )
    .argument('<path>', 'the file to write (must not exist yet)')
    .action(async (target: string, _opts: unknown, cmd: Command) => {
      const { backupConfiguredStore } = await import('@baton/server/backup');
      const done = await backupConfiguredStore(target);
      if (cmd.optsWithGlobals<GlobalOptions>().json) printJson(done);
      else
        print(
          `backed up: ${done.source} -> ${done.target} (${done.pages} pages, ${done.bytes} bytes, integrity ok)`,
        );
    });
}
