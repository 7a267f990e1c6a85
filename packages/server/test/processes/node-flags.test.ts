import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

import { NODE_FLAGS } from '../../src/processes/node-flags.js';

const read = (path: string): string => readFileSync(fileURLToPath(new URL(path, import.meta.url)), 'utf8');

/**
 * The launchers that start a node give `node` the same flags (processes/node-flags.ts): they are
 * the command's, so each launcher carries them, and this holds the launchers to the one list.
 */
void describe('the flags node is started with', () => {
  void it('are what `npm start` passes', () => {
    const pkg = JSON.parse(read('../../../../../package.json')) as { scripts: Record<string, string> };
    const start = new RegExp(`node ${NODE_FLAGS.join(' ')} packages/server/dist/src/main\\.js$`);
    assert.match(pkg.scripts['start'] ?? '', start);
  });

  void it("are the benches' launcher's", () => {
    const launcher = read('../../../../../bench/lib/baton-server.mjs');
    assert.match(launcher, /spawn\(process\.execPath, \[\.\.\.NODE_FLAGS, /);
  });

  void it('stay off the shebangs, which must run where `env` takes no -S (BusyBox, the BSDs)', () => {
    assert.equal(read('../../src/main.js').split('\n')[0], '#!/usr/bin/env node');
    assert.equal(read('../../../../cli/bin/baton.js').split('\n')[0], '#!/usr/bin/env node');
  });

  void it('are taken by this node, and give V8 one background thread', () => {
    // The process's threads: the main thread, V8's pool and node's own few.
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
