import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StoreUnavailable } from '../../src/store/store-faults.js';
import { OutageLog } from '../../src/store/outage-log.js';

function recorder() {
  const lines: { level: 'warn' | 'info'; fields: Record<string, unknown>; message: string }[] = [];
  return {
    lines,
    logger: {
      warn: (fields: object, message: string) =>
        lines.push({ level: 'warn', fields: { ...fields }, message }),
      info: (fields: object, message: string) =>
        lines.push({ level: 'info', fields: { ...fields }, message }),
    },
  };
}

const away = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

void describe('OutageLog: what a background loop says while the database is away', () => {
  void it('says an outage once, reminds once a minute, and says when it ends', () => {
    let now = 0;
    const { lines, logger } = recorder();
    const log = new OutageLog(logger, 'timer loop', () => now);
    for (let round = 0; round < 200; round++) {
      log.failed(away());
      now += 500; // a round every half second: 100 s away in all
    }
    log.succeeded();
    assert.deepEqual(
      lines.map((l) => [l.level, l.message]),
      [
        ['warn', 'timer loop: database unavailable; waiting for it'],
        ['warn', 'timer loop: database still unavailable'],
        ['info', 'timer loop: database back'],
      ],
    );
    assert.equal(lines[0]!.fields.reason, 'PostgreSQL: connect ECONNREFUSED 127.0.0.1:5432');
    assert.equal('err' in lines[0]!.fields, false, 'an outage is one line, not a stack');
    assert.deepEqual(lines[2]!.fields, { failedRounds: 200, awayMs: 100_000 });
    // A later outage is news again.
    log.failed(new StoreUnavailable('SQLite: disk full'));
    assert.equal(lines.at(-1)!.message, 'timer loop: database unavailable; waiting for it');
  });

  void it('logs any other error in full every time, and success without an outage says nothing', () => {
    const { lines, logger } = recorder();
    const log = new OutageLog(logger, 'outbox relay', () => 0);
    log.succeeded();
    log.failed(new TypeError('x is not a function'));
    log.failed(new TypeError('x is not a function'));
    assert.equal(lines.length, 2);
    assert.equal(lines[0]!.message, 'outbox relay round failed; trying again');
    assert.ok(lines[0]!.fields.err instanceof Error);
  });
});
