import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, it } from 'node:test';

import { repoRoot } from '../helpers/baton-process.js';

// The written map stays true: scripts/check-docs.mjs (also run by `npm run lint`) fails when a
// file cites a design document outside the repository, a link or a `docs/….md#anchor` named in
// code leads to no file or heading, or a setting the server reads is missing from
// docs/configuration.md. Run here too, so `npm test` holds it as well.
void describe('documentation references', () => {
  void it('every reference in code and docs leads to a file and heading of the repository', () => {
    const result = spawnSync(process.execPath, [path.join(repoRoot, 'scripts', 'check-docs.mjs')], {
      cwd: repoRoot,
      encoding: 'utf8',
    });
    assert.equal(result.status, 0, `check-docs found problems:\n${result.stderr}`);
    assert.match(result.stdout, /every reference inside the repository resolves/);
  });
});
