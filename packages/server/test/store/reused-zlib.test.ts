import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { Deflate, Inflate, deflateSync, inflateSync, type ZlibOptions } from 'node:zlib';

import { ReusedZlib } from '../../src/store/reused-zlib.js';

const DICTIONARY = Buffer.from('"inputData":{"outputData":{"workflowTask":{"name":"');
const PACK: ZlibOptions = { level: 1, windowBits: 11, memLevel: 5, dictionary: DICTIONARY };
const UNPACK: ZlibOptions = { windowBits: 11, dictionary: DICTIONARY };

/** A ReusedZlib whose public call counts how often it answered. */
function counted(make: () => Deflate | Inflate, fallback: (input: Uint8Array) => Buffer) {
  const calls = { fallback: 0 };
  const zlib = new ReusedZlib(make, (input) => {
    calls.fallback += 1;
    return fallback(input);
  });
  return { zlib, calls };
}

const texts = [
  '',
  '{}',
  JSON.stringify({ inputData: { note: 'crème brûlée 🎉 "quoted"' }, outputData: { n: 1 } }),
  JSON.stringify({ outputData: { big: 'x'.repeat(300_000) } }),
  // Incompressible: its packed form is larger than one 64 KB scratch buffer.
  randomBytes(150_000).toString('base64'),
];

// store/reused-zlib.ts: one zlib stream reused for every call answers byte for byte what the
// public sync calls answer, falls back to them for anything it cannot vouch for, and survives
// the errors of a damaged input.
void describe('a zlib stream reused for many calls (store/reused-zlib.ts)', () => {
  void it('deflates exactly as deflateSync, call after call, in and beyond one output buffer', () => {
    const { zlib, calls } = counted(
      () => new Deflate(PACK),
      (input) => deflateSync(input, PACK),
    );
    for (let round = 0; round < 3; round++)
      for (const text of texts) {
        const input = Buffer.from(text);
        assert.deepEqual(zlib.toBuffer(input), deflateSync(input, PACK), `${text.length} chars`);
      }
    assert.equal(calls.fallback, 1, 'only the first answer is checked against the public call');
  });

  void it('puts the prefix byte first, in a buffer of its own', () => {
    const zlib = new ReusedZlib(
      () => new Deflate(PACK),
      (input) => deflateSync(input, PACK),
    );
    const input = Buffer.from('{"a":1}');
    const out = zlib.toBuffer(input, 7);
    assert.equal(out[0], 7);
    assert.deepEqual(out.subarray(1), deflateSync(input, PACK));
    assert.equal(out.buffer.byteLength, out.length, 'not a slice of a shared pool');
  });

  void it('inflates exactly as inflateSync, the dictionary kept across resets', () => {
    const { zlib, calls } = counted(
      () => new Inflate(UNPACK),
      (input) => inflateSync(input, UNPACK),
    );
    for (let round = 0; round < 3; round++)
      for (const text of texts) assert.equal(zlib.toText(deflateSync(text, PACK)), text);
    assert.equal(calls.fallback, 1);
  });

  void it('fails a damaged input as inflateSync does, and the next call works', () => {
    const zlib = new ReusedZlib(
      () => new Inflate(UNPACK),
      (input) => inflateSync(input, UNPACK),
    );
    const good = deflateSync('{"outputData":{"list":[1,2,3]}}', PACK);
    assert.equal(zlib.toText(good), '{"outputData":{"list":[1,2,3]}}');
    const damaged = Buffer.from(good);
    damaged[damaged.length - 1] = (damaged[damaged.length - 1] ?? 0) ^ 0xff;
    let expected: unknown;
    try {
      inflateSync(damaged, UNPACK);
    } catch (e) {
      expected = e;
    }
    assert.ok(expected instanceof Error);
    assert.throws(() => zlib.toText(damaged), { message: expected.message });
    assert.throws(() => zlib.toText(Buffer.from([0x78, 0x01, 0xff])), /unexpected end of file|invalid/);
    assert.equal(zlib.toText(good), '{"outputData":{"list":[1,2,3]}}');
    assert.equal(zlib.toText(deflateSync('{}', PACK)), '{}');
  });

  void it('answers through the public call when the stream is not what it expects', () => {
    const { zlib, calls } = counted(
      () => new PassThrough() as unknown as Deflate,
      (input) => deflateSync(input, PACK),
    );
    const input = Buffer.from('{"a":1}');
    for (let i = 0; i < 3; i++) assert.deepEqual(zlib.toBuffer(input), deflateSync(input, PACK));
    assert.equal(calls.fallback, 3);
  });

  void it('turns itself off when its first answer differs from the public call', () => {
    // A stream at another level than the public call: its answer differs, so the public call's stands.
    const { zlib, calls } = counted(
      () => new Deflate({ ...PACK, level: 9 }),
      (input) => deflateSync(input, PACK),
    );
    const input = Buffer.from(JSON.stringify({ outputData: { a: 'abcabcabcabd'.repeat(50), b: 'abcd' } }));
    assert.notDeepEqual(deflateSync(input, { ...PACK, level: 9 }), deflateSync(input, PACK));
    for (let i = 0; i < 3; i++) assert.deepEqual(zlib.toBuffer(input), deflateSync(input, PACK));
    assert.ok(calls.fallback >= 3);
  });
});
