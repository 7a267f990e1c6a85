import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

import { ERROR_CODES, ERROR_REGISTRY, type SpecificErrorCode, errorStatus } from '@baton/protocol';

import { ERROR_MESSAGES } from '../../src/error-messages.js';
import { errorMessage, fail } from '../../src/errors.js';
import { repoRoot } from '../helpers/baton-process.js';

/**
 * The error registry holds together: every code is documented in docs/errors.md with its class
 * and status, codes are unique and distinct from the classes, every code has a template and is
 * raised somewhere, and no source file raises an error outside the registry.
 */

const codes = Object.keys(ERROR_REGISTRY) as SpecificErrorCode[];
const serverSrc = path.join(repoRoot, 'packages/server/src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

const sources = sourceFiles(serverSrc).map((file) => ({
  file: path.relative(serverSrc, file),
  text: readFileSync(file, 'utf8'),
}));

/** The rows of docs/errors.md's tables: errorCode → [class, status]. */
function documentedRows(): Map<string, { errorClass: string; status: number }> {
  const doc = readFileSync(path.join(repoRoot, 'docs/errors.md'), 'utf8');
  const rows = new Map<string, { errorClass: string; status: number }>();
  for (const line of doc.split('\n')) {
    const match = /^\|\s*`([A-Z0-9_]+)`\s*\|\s*([A-Z_]+)\s*\|\s*(\d+)\s*\|/.exec(line);
    if (!match) continue;
    const [, code = '', errorClass = '', status = ''] = match;
    assert.ok(!rows.has(code), `docs/errors.md lists ${code} twice`);
    rows.set(code, { errorClass, status: Number(status) });
  }
  return rows;
}

describe('error registry', () => {
  it('documents every code in docs/errors.md with its class and status, and no other code', () => {
    const rows = documentedRows();
    for (const code of codes) {
      const row = rows.get(code);
      assert.ok(row, `${code} is not in docs/errors.md`);
      assert.equal(row.errorClass, ERROR_REGISTRY[code].class, `${code}'s class in docs/errors.md`);
      assert.equal(row.status, errorStatus(code), `${code}'s status in docs/errors.md`);
    }
    const unknown = [...rows.keys()].filter((code) => !(code in ERROR_REGISTRY));
    assert.deepEqual(unknown, [], 'docs/errors.md lists codes the registry lacks');
  });

  it('keeps codes unique, distinct from the classes, and each with a class and a template', () => {
    const seen = new Set<string>();
    for (const code of codes) {
      assert.match(code, /^[A-Z][A-Z0-9]*(_[A-Z0-9]+)+$/, `${code} is not SCREAMING_SNAKE with a qualifier`);
      assert.ok(!seen.has(code.toLowerCase()), `${code} is listed twice`);
      seen.add(code.toLowerCase());
      assert.ok(!(code in ERROR_CODES), `${code} reads as a class`);
      assert.ok(ERROR_REGISTRY[code].class in ERROR_CODES, `${code}'s class is unknown`);
      assert.equal(typeof ERROR_MESSAGES[code].message, 'string', `${code} has no template`);
    }
    assert.deepEqual(Object.keys(ERROR_MESSAGES).sort(), [...codes].sort(), 'templates and codes differ');
  });

  it('fills templates by name and builds errors of the code’s class and status', () => {
    const error = fail('RUN_NOT_FOUND', { workflowId: 'w-1' });
    assert.equal(error.message, 'No such workflow found by id: w-1');
    assert.equal(error.code, 'NOT_FOUND');
    assert.equal(error.errorCode, 'RUN_NOT_FOUND');
    assert.equal(error.status, 404);
    assert.equal(error.retryable, false);
    // A value is never read as a template: braces in it stay as they are.
    assert.equal(
      errorMessage('CONDUCTOR_ENDPOINT_UNSUPPORTED', { method: 'GET', url: '/a/{id}', feature: 'none' }),
      "Conductor's GET /a/{id}: none",
    );
    assert.equal(fail('DATABASE_UNAVAILABLE', { reason: 'down' }).retryable, true);
    assert.equal(fail('REQUEST_TIMEOUT').status, 408);
  });

  it('raises every code somewhere in the server', () => {
    const text = sources
      .filter((s) => s.file !== 'error-messages.ts')
      .map((s) => s.text)
      .join('\n');
    const unused = codes.filter((code) => !text.includes(`'${code}'`));
    assert.deepEqual(unused, [], 'codes no source raises: remove them or raise them');
  });

  it('finds no error raised outside the registry in the server sources', () => {
    const offences: string[] = [];
    const rules: Array<[RegExp, string]> = [
      [/new BatonError\(/, 'builds BatonError directly: throw fail(code, params)'],
      [
        /\b(notFound|badRequest|conflict|forbidden|tooLarge)\(/,
        'uses an ad hoc error helper: throw fail(code, params)',
      ],
      [
        new RegExp(`\\bcode: '(?:${Object.keys(ERROR_CODES).join('|')})'`),
        'writes an error body by hand: errorBody(fail(code, params))',
      ],
      [/extends BatonError\b/, 'subclasses BatonError'],
    ];
    // The registry's own files, and the one subclass that adds the WWW-Authenticate challenge.
    const allowed: Record<string, readonly string[]> = {
      'errors.ts': ['builds BatonError directly: throw fail(code, params)'],
      'auth/token-errors.ts': ['subclasses BatonError'],
    };
    for (const { file, text } of sources) {
      for (const [pattern, why] of rules) {
        if (allowed[file]?.includes(why)) continue;
        for (const [i, line] of text.split('\n').entries()) {
          if (line.trimStart().startsWith('*') || line.trimStart().startsWith('//')) continue;
          if (pattern.test(line)) offences.push(`${file}:${i + 1}: ${why}`);
        }
      }
      // Every code named to fail/failWith/TokenRejected is a registered one.
      for (const match of text.matchAll(/\b(?:fail|failWith|TokenRejected)\(\s*'([A-Z0-9_]+)'/g)) {
        const code = match[1] ?? '';
        if (!(code in ERROR_REGISTRY)) offences.push(`${file}: raises unregistered code ${code}`);
      }
    }
    assert.deepEqual(offences, []);
  });
});
