import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { resolveParameters } from '../../src/engine/expressions.js';
import { SecretCipher } from '../../src/auth/secret-cipher.js';
import { SecretMasker } from '../../src/integrations/secrets/secret-masker.js';
import { secretNamesIn, substituteSecrets } from '../../src/integrations/secrets/secret-refs.js';
import { compileOptions, ConfigError } from '../../src/config/options.js';

describe('secret references, sealing and masking', () => {
  it('expression resolution keeps ${workflow.secrets.NAME} literal, whole or inside text', () => {
    const doc = { workflow: { input: { name: 'TOKEN' }, secrets: { TOKEN: 'leaked' } } };
    const out = resolveParameters(
      {
        whole: '${workflow.secrets.TOKEN}',
        text: 'Bearer ${workflow.secrets.TOKEN}',
        nested: { list: ['${$.workflow.secrets.TOKEN}'] },
        dynamic: '${workflow.secrets.${workflow.input.name}}',
        other: '${workflow.input.name}',
      },
      doc,
    );
    assert.deepEqual(out, {
      whole: '${workflow.secrets.TOKEN}',
      text: 'Bearer ${workflow.secrets.TOKEN}',
      nested: { list: ['${$.workflow.secrets.TOKEN}'] },
      dynamic: '${workflow.secrets.TOKEN}',
      other: 'TOKEN',
    });
    assert.ok(!JSON.stringify(out).includes('leaked'));
  });

  it('finds and substitutes references in a copy', () => {
    const input = {
      a: 'Bearer ${workflow.secrets.A}',
      b: ['${ workflow.secrets.B }', 3],
      c: { d: '$${workflow.secrets.A}' },
    };
    assert.deepEqual(secretNamesIn(input).sort(), ['A', 'B']);
    const out = substituteSecrets(
      input,
      new Map([
        ['A', 'aa'],
        ['B', 'bb'],
      ]),
    );
    assert.deepEqual(out, { a: 'Bearer aa', b: ['bb', 3], c: { d: '$${workflow.secrets.A}' } });
    assert.equal(input.a, 'Bearer ${workflow.secrets.A}', 'the input is not changed');
  });

  it('seals with AES-256-GCM bound to the name and key', () => {
    const cipher = new SecretCipher(Buffer.alloc(32, 1));
    const sealed = cipher.seal('N', 'value');
    assert.notEqual(cipher.seal('N', 'value'), sealed, 'a fresh IV each time');
    assert.ok(!Buffer.from(sealed, 'base64').toString('latin1').includes('value'));
    assert.equal(cipher.open('N', sealed), 'value');
    assert.throws(() => cipher.open('M', sealed), 'another name does not open it');
    assert.throws(
      () => new SecretCipher(Buffer.alloc(32, 2)).open('N', sealed),
      'another key does not open it',
    );
    const raw = Buffer.from(sealed, 'base64');
    raw[raw.length - 1] = (raw[raw.length - 1] ?? 0) ^ 1;
    assert.throws(() => cipher.open('N', raw.toString('base64')), 'an altered value does not open');
  });

  it('masks every value (longest first) in text, keys and nested values', () => {
    const masker = new SecretMasker(['abc', 'abcdef']);
    assert.equal(masker.text('x abcdef y abc'), 'x *** y ***');
    assert.deepEqual(masker.json({ abc: ['abcdef!', 1, true, null] }), { '***': ['***!', 1, true, null] });
    assert.equal(new SecretMasker().json('abc'), 'abc');
  });

  it('BATON_SECRETS_KEY must be 32 bytes as base64 or hex', () => {
    assert.equal(compileOptions({}).secretsKey, undefined);
    assert.equal(compileOptions({ BATON_SECRETS_KEY: 'ab'.repeat(32) }).secretsKey?.length, 32);
    assert.equal(
      compileOptions({ BATON_SECRETS_KEY: Buffer.alloc(32, 9).toString('base64') }).secretsKey?.length,
      32,
    );
    assert.throws(() => compileOptions({ BATON_SECRETS_KEY: 'short' }), ConfigError);
    assert.throws(
      () => compileOptions({ BATON_SECRETS_KEY: Buffer.alloc(16).toString('base64') }),
      /openssl rand -base64 32/,
    );
  });
});
