import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';

import { PackedRecordError, packDictionary, packRecord, unpackRecord } from '../../src/store/record-codec.js';

// Packed task records (store/record-codec.ts): what is packed unpacks to the same text, every
// dictionary stays what rows were packed with, and a row that cannot be unpacked says which.
void describe('packed records (store/record-codec.ts)', () => {
  void it('unpack to exactly the text packed: empty, unicode, escapes, and large values', () => {
    const texts = [
      '{}',
      JSON.stringify({ inputData: { note: 'crème brûlée 🎉 \u0000 "quoted" \\ back' } }),
      JSON.stringify({
        outputData: { big: 'x'.repeat(200_000), list: Array.from({ length: 5_000 }, (_, i) => i) },
      }),
      JSON.stringify({
        workflowTask: { name: 'a', taskReferenceName: 'b', type: 'SIMPLE', inputParameters: {} },
      }),
    ];
    for (const text of texts) {
      const packed = packRecord(text);
      assert.equal(packed[0], 1, 'the first byte names the dictionary');
      assert.equal(unpackRecord(packed, 'test row'), text);
    }
  });

  void it('packs a usual task record to well under half its text', () => {
    const text = JSON.stringify({
      inputData: { run: 7, step: 3, data: { orderId: 'order-7', amount: 42.5, note: 'a small note' } },
      outputData: { data: { orderId: 'order-7', amount: 42.5, note: 'a small note' } },
      workflowTask: {
        name: 'bench_step',
        taskReferenceName: 's3',
        type: 'SIMPLE',
        inputParameters: { run: '${workflow.input.run}', data: '${s2.output.data}' },
      },
      responseTimeoutSeconds: 300,
      scheduledTime: 1764376512345,
      endTime: 1764376512365,
      queueName: 'bench_step',
      workerId: 'bench-12345',
    });
    assert.ok(packRecord(text).length < text.length / 2, `${packRecord(text).length} of ${text.length}`);
  });

  void it('keeps dictionary 1 as rows were packed with it (a new dictionary is a new version)', () => {
    const dictionary = packDictionary(1);
    assert.ok(dictionary);
    assert.equal(
      createHash('sha256').update(dictionary).digest('hex'),
      '00942820b89bc13e261f4f4107310968a0d0e62f2405634d771f386b9426383b',
      'dictionary 1 changed: stored rows need it as it was; add version 2 instead',
    );
    assert.equal(packDictionary(2), undefined);
  });

  void it('never reads a packed record with a damaged byte as other text (its checksum)', () => {
    const text = JSON.stringify({ outputData: { amount: 42.5, note: 'a small note', list: [1, 2, 3] } });
    const packed = packRecord(text);
    for (let at = 1; at < packed.length; at++) {
      for (const flip of [0x01, 0x80]) {
        const damaged = Buffer.from(packed);
        damaged[at] = (damaged[at] ?? 0) ^ flip;
        // Either the damage is caught, or it fell in bits the stream does not use (the padding
        // after its last code) and the very text comes back: never other text.
        let read: string | undefined;
        try {
          read = unpackRecord(damaged, 'task t-9');
        } catch (e) {
          assert.ok(e instanceof PackedRecordError, String(e));
          continue;
        }
        assert.equal(read, text, `byte ${at} flipped by ${flip} read as other text`);
      }
    }
  });

  void it('names the row when its packed record cannot be read, and never guesses', () => {
    const good = packRecord('{"a":1}');
    assert.throws(
      () => unpackRecord(Buffer.from([]), 'task t-1'),
      (e: unknown) => {
        assert.ok(e instanceof PackedRecordError);
        assert.match(e.message, /^task t-1: .*codec \(none: empty\)/);
        return true;
      },
    );
    assert.throws(
      () => unpackRecord(Buffer.concat([Buffer.from([9]), good.subarray(1)]), 'task t-2'),
      /^PackedRecordError: task t-2: .*codec 9/,
    );
    assert.throws(
      () => unpackRecord(Buffer.from([1, 0xff, 0xff, 0xff, 0xff]), 'task t-3'),
      (e: unknown) =>
        e instanceof PackedRecordError && /^task t-3: its stored record does not unpack/.test(e.message),
    );
  });
});
