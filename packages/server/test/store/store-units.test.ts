import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { isRetryable, isUniqueViolation, sqlState } from '../../src/store/sqlstate.js';
import { payloadsOf } from '../../src/store-postgres/notifier.js';
import { PeerPresence } from '../../src/store-postgres/peer-presence.js';
import { MAX_NOTIFY_PAYLOAD, parsePayload } from '../../src/store-postgres/queue-listener.js';
import { withRetry } from '../../src/store-postgres/retry.js';
import { runOrderBy } from '../../src/store/sql-common.js';

const pgError = (code: string): Error => Object.assign(new Error(`pg ${code}`), { code });

void describe('pg error classification', () => {
  void it('reads the SQLSTATE from the error or its cause chain', () => {
    assert.equal(sqlState(pgError('40001')), '40001');
    assert.equal(sqlState(new Error('wrapped', { cause: pgError('40P01') })), '40P01');
    assert.equal(sqlState(new Error('plain')), undefined);
    assert.equal(sqlState(Object.assign(new Error('node'), { code: 'ECONNRESET' })), undefined);
    assert.equal(sqlState('40001'), undefined);
    assert.equal(sqlState(null), undefined);
  });

  void it('retries serialization failures and deadlocks only', () => {
    assert.equal(isRetryable(pgError('40001')), true);
    assert.equal(isRetryable(pgError('40P01')), true);
    assert.equal(isRetryable(new Error('x', { cause: pgError('40001') })), true);
    assert.equal(isRetryable(pgError('23505')), false);
    assert.equal(isRetryable(new Error('40001')), false, 'message text is not a code');
    assert.equal(isUniqueViolation(pgError('23505')), true);
    assert.equal(isUniqueViolation(pgError('23503')), false);
  });
});

void describe('withRetry', () => {
  const noSleep = { sleep: async () => Promise.resolve(), random: () => 0.5 };

  void it('runs again from the start on a retryable error', async () => {
    let calls = 0;
    const result = await withRetry(async (attempt) => {
      calls++;
      if (attempt < 3) throw pgError(attempt === 1 ? '40001' : '40P01');
      return Promise.resolve('done');
    }, noSleep);
    assert.equal(result, 'done');
    assert.equal(calls, 3);
  });

  void it('does not retry other errors', async () => {
    let calls = 0;
    await assert.rejects(
      withRetry(async () => {
        calls++;
        return Promise.reject(pgError('23505'));
      }, noSleep),
      /23505/,
    );
    assert.equal(calls, 1);
  });

  void it('gives up after the attempt limit with the last error, backing off with jitter', async () => {
    const delays: number[] = [];
    let calls = 0;
    await assert.rejects(
      withRetry(
        async () => {
          calls++;
          return Promise.reject(pgError('40001'));
        },
        {
          attempts: 5,
          baseDelayMs: 10,
          maxDelayMs: 50,
          random: () => 1,
          sleep: async (ms) => {
            delays.push(ms);
            return Promise.resolve();
          },
        },
      ),
      /40001/,
    );
    assert.equal(calls, 5);
    assert.deepEqual(delays, [10, 20, 40, 50]);
  });
});

void describe('notification payloads', () => {
  void it('joins and splits queue names', () => {
    assert.deepEqual(payloadsOf(['a', 'b-high']), ['a,b-high']);
    assert.deepEqual(parsePayload('a,b-high'), ['a', 'b-high']);
    assert.deepEqual(parsePayload(''), []);
    assert.deepEqual(parsePayload(undefined), []);
  });

  void it('splits names that would not fit in one NOTIFY into several payloads, losing none', () => {
    const many = Array.from({ length: 1000 }, (_, i) => `queue-number-${i}`);
    assert.ok(many.join(',').length > MAX_NOTIFY_PAYLOAD);
    const payloads = payloadsOf(many);
    assert.ok(payloads.length > 1);
    for (const p of payloads) assert.ok(Buffer.byteLength(p) <= MAX_NOTIFY_PAYLOAD);
    assert.deepEqual(payloads.flatMap(parsePayload), many);
  });
});

void describe('peer presence (whether to NOTIFY other nodes)', () => {
  /** A presence over a scripted check and a clock the test moves. */
  const scripted = (answers: Array<boolean | Error>) => {
    let now = 1_000;
    let checks = 0;
    const pending: Array<(v: boolean | Error) => void> = [];
    const presence = new PeerPresence(
      () => {
        checks++;
        const next = answers.shift();
        if (next === undefined)
          return new Promise<boolean>((resolve, reject) => {
            pending.push((v) => (v instanceof Error ? reject(v) : resolve(v)));
          });
        return next instanceof Error ? Promise.reject(next) : Promise.resolve(next);
      },
      { ttlMs: 5_000, now: () => now },
    );
    return {
      presence,
      checks: () => checks,
      advance: (ms: number) => (now += ms),
      answer: (v: boolean | Error) => pending.shift()?.(v),
    };
  };

  void it('checks when it must, and keeps the answer while it is fresh', async () => {
    const s = scripted([false, true]);
    assert.equal(await s.presence.othersMayListen(), false);
    assert.equal(await s.presence.othersMayListen(), false);
    s.advance(4_999);
    assert.equal(await s.presence.othersMayListen(), false);
    assert.equal(s.checks(), 1);
    s.advance(1);
    assert.equal(await s.presence.othersMayListen(), true);
    assert.equal(s.checks(), 2);
  });

  void it("a node's hello means there is someone to notify at once, whatever the last check said", async () => {
    const s = scripted([false, false]);
    assert.equal(await s.presence.othersMayListen(), false);
    s.presence.heard();
    assert.equal(await s.presence.othersMayListen(), true);
    assert.equal(s.checks(), 1);
    // Until the next check, which finds that the node has gone.
    s.advance(5_000);
    assert.equal(await s.presence.othersMayListen(), false);
  });

  void it('a check under way when a hello arrives does not undo the hello', async () => {
    const s = scripted([]);
    const first = s.presence.othersMayListen();
    // One check at a time: a second caller shares it.
    const second = s.presence.othersMayListen();
    s.presence.heard();
    s.answer(false);
    assert.deepEqual(await Promise.all([first, second]), [true, true]);
    assert.equal(s.checks(), 1);
    assert.equal(await s.presence.othersMayListen(), true);
  });

  void it('a check that fails counts as "others may listen", and is tried again next time', async () => {
    const s = scripted([new Error('connection lost'), false]);
    assert.equal(await s.presence.othersMayListen(), true);
    assert.equal(await s.presence.othersMayListen(), false);
    assert.equal(s.checks(), 2);
  });
});

void describe('run sort', () => {
  void it('maps allowed fields to columns, defaults to newest first, ends on the id', () => {
    assert.equal(runOrderBy([]), 'create_time DESC, workflow_id ASC');
    assert.equal(
      runOrderBy([
        { field: 'workflowType', order: 'ASC' },
        { field: 'endTime', order: 'DESC' },
      ]),
      'workflow_name ASC, end_time DESC, workflow_id ASC',
    );
    assert.equal(runOrderBy([{ field: 'workflowId', order: 'DESC' }], '"C"'), 'workflow_id COLLATE "C" DESC');
    assert.throws(() => runOrderBy([{ field: 'toString' as 'createTime', order: 'ASC' }]), /cannot sort/);
  });
});
