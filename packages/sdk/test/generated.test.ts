import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';

import { repoRoot } from './helpers/baton.js';

const script = path.join(repoRoot, 'packages/sdk/scripts/generate.mjs');
const generated = path.join(repoRoot, 'packages/sdk/src/generated/openapi.ts');

function check(extra: string[] = []) {
  return spawnSync(process.execPath, [script, '--check', ...extra], { encoding: 'utf8', timeout: 120_000 });
}

// The checked-in client types must describe the server as built: every route added to the
// server changes /api/openapi.json, and this fails until the types are regenerated.
describe('generated API types', () => {
  it("are current with the server's /api/openapi.json", () => {
    const result = check();
    assert.equal(result.status, 0, `${result.stderr}${result.stdout}`);
  });

  it('a stale file fails the check with the command that fixes it', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'baton-spec-'));
    const backup = path.join(dir, 'openapi.ts');
    copyFileSync(generated, backup);
    try {
      // A document with one route more than the checked-in types describe.
      const spec = JSON.parse(
        spawnSync(process.execPath, [script, '--dump'], { encoding: 'utf8', timeout: 120_000 }).stdout,
      ) as { paths: Record<string, unknown> };
      spec.paths['/api/brand-new'] = { get: { responses: { 200: { description: 'ok' } } } };
      const specFile = path.join(dir, 'spec.json');
      writeFileSync(specFile, JSON.stringify(spec));
      const result = check(['--spec', specFile]);
      assert.equal(result.status, 1);
      assert.match(result.stderr, /run npm run generate/);
      assert.equal(readFileSync(generated, 'utf8'), readFileSync(backup, 'utf8'), '--check writes nothing');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
