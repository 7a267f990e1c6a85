import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { ByteBoundedCache } from '../../src/store/byte-bounded-cache.js';

const row = (bytes: number, name = '') => ({ bytes, name });

void describe('a cache bounded by bytes (store/byte-bounded-cache.ts)', () => {
  void it('keeps rows up to the budget and pushes out the oldest past it', () => {
    const rows = new ByteBoundedCache<{ bytes: number; name: string }>(1_000, 500);
    for (let i = 0; i < 10; i++) rows.set(`t${i}`, row(100, `v${i}`));
    assert.deepEqual(rows.size, { rows: 10, bytes: 1_000 });
    rows.set('t10', row(250));
    assert.deepEqual(rows.size, { rows: 8, bytes: 1_050 - 100 }, 'three oldest out, under the budget again');
    assert.equal(rows.get('t0'), undefined);
    assert.equal(rows.get('t2'), undefined);
    assert.equal(rows.get('t3')?.name, 'v3');
  });

  void it('a row read again is pushed out last', () => {
    const rows = new ByteBoundedCache<{ bytes: number; name: string }>(300, 300);
    rows.set('a', row(100));
    rows.set('b', row(100));
    rows.set('c', row(100));
    assert.ok(rows.get('a'), 'read: now the newest');
    rows.set('d', row(100));
    assert.equal(rows.get('b'), undefined, 'the oldest unread went');
    assert.ok(rows.get('a'));
    assert.ok(rows.get('c'));
    assert.ok(rows.get('d'));
  });

  void it('a new version of a row replaces the old one and its bytes', () => {
    const rows = new ByteBoundedCache<{ bytes: number; name: string }>(1_000, 1_000);
    rows.set('a', row(400, 'first'));
    rows.set('a', row(100, 'second'));
    assert.deepEqual(rows.size, { rows: 1, bytes: 100 });
    assert.equal(rows.get('a')?.name, 'second');
    rows.delete('a');
    rows.delete('a');
    assert.deepEqual(rows.size, { rows: 0, bytes: 0 });
  });

  void it('a row larger than its share is not kept, and does not leave the old version behind', () => {
    const rows = new ByteBoundedCache<{ bytes: number; name: string }>(10_000, 1_000);
    rows.set('small', row(10));
    rows.set('big', row(900, 'fits'));
    rows.set('big', row(5_000, 'too large'));
    assert.equal(rows.get('big'), undefined, 'neither the large row nor its older version');
    assert.deepEqual(rows.size, { rows: 1, bytes: 10 });
  });
});
