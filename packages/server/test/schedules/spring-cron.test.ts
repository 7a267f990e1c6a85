import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { cronProblem, nextSlots } from '../../src/schedules/cron.js';

/**
 * Every form of Spring's `CronExpression` (what Conductor's scheduler takes), with the next fire
 * times worked out by hand from an injected instant: Thursday 1 January 2026, 00:00:00 UTC.
 */
const NOW = Date.UTC(2026, 0, 1, 0, 0, 0);
const iso = (ms: number): string => new Date(ms).toISOString().replace('.000Z', 'Z');
const next = (expression: string, count: number, after = NOW, zone = 'UTC'): string[] =>
  nextSlots(expression, zone, after, count).map(iso);

describe("Spring's CronExpression examples (its javadoc), next fire times", () => {
  const examples: Array<[string, string, string[]]> = [
    ['0 0 * * * *', 'the top of every hour', ['2026-01-01T01:00:00Z', '2026-01-01T02:00:00Z']],
    ['*/10 * * * * *', 'every ten seconds', ['2026-01-01T00:00:10Z', '2026-01-01T00:00:20Z']],
    [
      '0 0 8-10 * * *',
      '8, 9 and 10 o’clock of every day',
      ['2026-01-01T08:00:00Z', '2026-01-01T09:00:00Z', '2026-01-01T10:00:00Z', '2026-01-02T08:00:00Z'],
    ],
    [
      '0 0 6,19 * * *',
      '6:00 AM and 7:00 PM every day',
      ['2026-01-01T06:00:00Z', '2026-01-01T19:00:00Z', '2026-01-02T06:00:00Z'],
    ],
    [
      '0 0/30 8-10 * * *',
      '8:00, 8:30, 9:00, 9:30, 10:00 and 10:30 every day',
      [
        '2026-01-01T08:00:00Z',
        '2026-01-01T08:30:00Z',
        '2026-01-01T09:00:00Z',
        '2026-01-01T09:30:00Z',
        '2026-01-01T10:00:00Z',
        '2026-01-01T10:30:00Z',
        '2026-01-02T08:00:00Z',
      ],
    ],
    [
      '0 0 9-17 * * MON-FRI',
      'on the hour nine-to-five weekdays',
      ['2026-01-01T09:00:00Z', '2026-01-01T10:00:00Z', '2026-01-01T11:00:00Z'],
    ],
    ['0 0 0 25 DEC ?', 'every Christmas Day at midnight', ['2026-12-25T00:00:00Z', '2027-12-25T00:00:00Z']],
    [
      '0 0 0 L * *',
      'last day of the month at midnight',
      ['2026-01-31T00:00:00Z', '2026-02-28T00:00:00Z', '2026-03-31T00:00:00Z'],
    ],
    [
      '0 0 0 L-3 * *',
      'third-to-last day of the month at midnight',
      ['2026-01-28T00:00:00Z', '2026-02-25T00:00:00Z', '2026-03-28T00:00:00Z', '2026-04-27T00:00:00Z'],
    ],
    [
      '0 0 0 * * 5L',
      'last Friday of the month at midnight',
      ['2026-01-30T00:00:00Z', '2026-02-27T00:00:00Z', '2026-03-27T00:00:00Z'],
    ],
    [
      '0 0 0 * * THUL',
      'last Thursday of the month at midnight',
      ['2026-01-29T00:00:00Z', '2026-02-26T00:00:00Z', '2026-03-26T00:00:00Z'],
    ],
    [
      '0 0 0 1W * *',
      'first weekday of the month at midnight',
      // 1 Feb 2026 is a Sunday (→ Monday 2nd), 1 Mar a Sunday (→ 2nd), 1 Apr a Wednesday.
      ['2026-02-02T00:00:00Z', '2026-03-02T00:00:00Z', '2026-04-01T00:00:00Z'],
    ],
    [
      '0 0 0 LW * *',
      'last weekday of the month at midnight',
      // 31 Jan 2026 is a Saturday (→ Friday 30th); 28 Feb a Saturday (→ 27th); 31 Mar a Tuesday.
      ['2026-01-30T00:00:00Z', '2026-02-27T00:00:00Z', '2026-03-31T00:00:00Z'],
    ],
    [
      '0 0 0 ? * 5#2',
      'the second Friday in the month at midnight',
      ['2026-01-09T00:00:00Z', '2026-02-13T00:00:00Z', '2026-03-13T00:00:00Z'],
    ],
    [
      '0 0 0 ? * MON#1',
      'the first Monday in the month at midnight',
      ['2026-01-05T00:00:00Z', '2026-02-02T00:00:00Z', '2026-03-02T00:00:00Z'],
    ],
  ];
  for (const [expression, meaning, expected] of examples) {
    it(`${expression}: ${meaning}`, () => {
      assert.equal(cronProblem(expression, 'UTC'), undefined);
      assert.deepEqual(next(expression, expected.length), expected);
    });
  }
});

describe('Spring forms croner reads differently', () => {
  it('0/5 (from a number) steps from it to the field maximum, in every field', () => {
    assert.equal(cronProblem('0/5 * * ? * *', 'UTC'), undefined);
    assert.deepEqual(next('0/5 * * ? * *', 3), [
      '2026-01-01T00:00:05Z',
      '2026-01-01T00:00:10Z',
      '2026-01-01T00:00:15Z',
    ]);
    assert.deepEqual(next('7/20 * * * * *', 4), [
      '2026-01-01T00:00:07Z',
      '2026-01-01T00:00:27Z',
      '2026-01-01T00:00:47Z',
      '2026-01-01T00:01:07Z',
    ]);
    // Months from JAN every third: January, April, July, October.
    assert.deepEqual(next('0 0 12 1 JAN/3 *', 4), [
      '2026-01-01T12:00:00Z',
      '2026-04-01T12:00:00Z',
      '2026-07-01T12:00:00Z',
      '2026-10-01T12:00:00Z',
    ]);
    // Day-of-week from Monday every second day up to 7: Monday, Wednesday, Friday, Sunday.
    assert.deepEqual(next('0 0 0 ? * 1/2', 4), [
      '2026-01-02T00:00:00Z',
      '2026-01-04T00:00:00Z',
      '2026-01-05T00:00:00Z',
      '2026-01-07T00:00:00Z',
    ]);
  });

  it('MON-FRI passes over the weekend: after Friday 17:00 comes Monday 9:00', () => {
    const fridayFive = Date.UTC(2026, 0, 2, 17, 0, 0);
    assert.deepEqual(next('0 0 9-17 * * MON-FRI', 1, fridayFive), ['2026-01-05T09:00:00Z']);
  });

  it('day-of-week: 0 and 7 are Sunday, names in any case, SUN-SAT is every day', () => {
    const sundays = ['2026-01-04T00:00:00Z', '2026-01-11T00:00:00Z'];
    assert.deepEqual(next('0 0 0 * * 0', 2), sundays);
    assert.deepEqual(next('0 0 0 * * 7', 2), sundays);
    assert.deepEqual(next('0 0 0 * * sun', 2), sundays);
    assert.deepEqual(next('0 0 0 * * SUN-SAT', 3), [
      '2026-01-02T00:00:00Z',
      '2026-01-03T00:00:00Z',
      '2026-01-04T00:00:00Z',
    ]);
    assert.deepEqual(next('0 0 0 * * SUNL', 1), ['2026-01-25T00:00:00Z']);
  });

  it('a day matches when day-of-month and day-of-week both match (Spring), not either (Vixie cron)', () => {
    // The 1st that is a Monday: June 2026, then February 2027.
    assert.deepEqual(next('0 0 0 1 * MON', 2), ['2026-06-01T00:00:00Z', '2027-02-01T00:00:00Z']);
    // The five-field form keeps Vixie cron's either.
    assert.deepEqual(next('0 0 1 * MON', 2), ['2026-01-05T00:00:00Z', '2026-01-12T00:00:00Z']);
  });

  it('macros', () => {
    assert.deepEqual(next('@hourly', 1), ['2026-01-01T01:00:00Z']);
    assert.deepEqual(next('@daily', 1), ['2026-01-02T00:00:00Z']);
    assert.deepEqual(next('@midnight', 1), ['2026-01-02T00:00:00Z']);
    assert.deepEqual(next('@weekly', 1), ['2026-01-04T00:00:00Z']);
    assert.deepEqual(next('@monthly', 1), ['2026-02-01T00:00:00Z']);
    assert.deepEqual(next('@yearly', 1), ['2027-01-01T00:00:00Z']);
    assert.deepEqual(next('@annually', 1), ['2027-01-01T00:00:00Z']);
  });

  it('L-n in a time zone, and the forms refused with the reason', () => {
    // Midnight in Berlin on the third-to-last day: 23:00 UTC the day before.
    assert.deepEqual(next('0 0 0 L-3 * *', 1, NOW, 'Europe/Berlin'), ['2026-01-27T23:00:00Z']);
    assert.match(cronProblem('0 0 0 L-3 * MON', 'UTC') ?? '', /L-3.*day-of-week \* or \? only/);
    assert.match(cronProblem('61 * * * * *', 'UTC') ?? '', /^invalid cron expression '61 \* \* \* \* \*'/);
    assert.match(cronProblem('0 0 0 * * FRI-MON', 'UTC') ?? '', /invalid cron expression/);
  });
});
