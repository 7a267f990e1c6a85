import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

import { NODE_FLAGS } from '../../src/processes/node-flags.js';

const read = (path: string): string => readFileSync(fileURLToPath(new URL(path, import.meta.url)), 'utf8');

/**
 * Every way Baton starts a node gives `node` the same flags (processes/node-flags.ts): they are
 * the command's, so each launcher carries them, and this holds the launchers to the one list.
 */
void describe('the flags node is started with', () => {
  void it('are what `npm start` passes', () => {
    const pkg = JSON.parse(read('../../../../../package.json')) as { scripts: Record<string, string> };
    assert.match(
      pkg.scripts['start'] ?? '',
      new RegExp(`node ${NODE_FLAGS.join(' ')} packages/server/dist/src/main\\.js$`),
    );
  });

  void it("are on the entry's shebang, for a node started as an executable", () => {
    const firstLine = read('../../src/main.js').split('\n')[0];
    assert.equal(firstLine, `#!/usr/bin/env -S node ${NODE_FLAGS.join(' ')}`);
  });

  void it("are on the `baton` command's bin, which runs `baton server` in its own process", () => {
    const firstLine = read('../../../../cli/bin/baton.js').split('\n')[0];
    assert.equal(firstLine, `#!/usr/bin/env -S node ${NODE_FLAGS.join(' ')}`);
  });

  void it("are the benches' launcher's", () => {
    const launcher = read('../../../../../bench/lib/baton-server.mjs');
    assert.match(launcher, /spawn\(process\.execPath, \[\.\.\.NODE_FLAGS, /);
  });

  void it('are taken by this node, and give V8 one background thread', () => {
    // The pool's threads are the process's: the main thread, V8's pool and node's own few.
    const threads = (flags: readonly string[]): number => {
      const script =
        "setTimeout(() => process.stdout.write(String(require('fs').readdirSync('/proc/self/task').length)), 50)";
      const child = spawnSync(process.execPath, [...flags, '-e', script], { encoding: 'utf8' });
      assert.equal(child.status, 0, child.stderr);
      return Number(child.stdout);
    };
    assert.equal(threads([]) - threads(NODE_FLAGS), 3, 'four pool threads by default, one with the flags');
  });
});
