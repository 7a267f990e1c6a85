import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { repoRoot } from './baton-process.js';

/**
 * A runnable server of an earlier release, built from this repository's own history: the tree of
 * `commit` (git archive), its locked dependencies (npm ci, without install scripts: a PostgreSQL
 * node needs no native SQLite module and no web UI), and `tsc -b packages/server`. The build is
 * kept under the system's temporary directory keyed by the commit, so later runs reuse it.
 */
export interface ReleaseBuild {
  root: string;
  /** node <serverEntry> runs that release's server. */
  serverEntry: string;
}

export function buildRelease(commit: string): ReleaseBuild {
  const root = path.join(tmpdir(), `baton-release-${commit}`);
  const serverEntry = path.join(root, 'packages/server/dist/src/main.js');
  const done = path.join(root, '.baton-release-built');
  if (existsSync(done)) return { root, serverEntry };

  const found = spawnSync('git', ['-C', repoRoot, 'cat-file', '-e', `${commit}^{commit}`]);
  if (found.status !== 0)
    throw new Error(
      `commit ${commit} (the previous release) is not in this clone: a shallow clone? fetch the full history (git fetch --unshallow)`,
    );
  // Built beside the final place, then renamed into it: a build cut short leaves no half tree behind.
  const staging = `${root}.partial-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  try {
    const tar = execFileSync('git', ['-C', repoRoot, 'archive', '--format=tar', commit], {
      maxBuffer: 512 * 1024 * 1024,
    });
    execFileSync('tar', ['-x', '-C', staging], { input: tar });
    // npm's own settings of a surrounding `npm test` (workspace, prefix, ...) must not leak in.
    const env = Object.fromEntries(
      Object.entries(process.env).filter(([key]) => !key.toLowerCase().startsWith('npm_')),
    );
    run('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], staging, env);
    run(process.execPath, ['node_modules/typescript/bin/tsc', '-b', 'packages/server'], staging, env);
    writeFileSync(path.join(staging, '.baton-release-built'), `${commit}\n`);
    if (existsSync(done)) return { root, serverEntry }; // another run finished first
    rmSync(root, { recursive: true, force: true });
    renameSync(staging, root);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return { root, serverEntry };
}

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): void {
  const result = spawnSync(command, args, { cwd, env, encoding: 'utf8', timeout: 300_000 });
  if (result.status !== 0)
    throw new Error(
      `building the previous release: ${command} ${args.join(' ')} failed (${result.status ?? result.signal}):\n` +
        `${result.stdout.slice(-4000)}\n${result.stderr.slice(-4000)}`,
    );
}
