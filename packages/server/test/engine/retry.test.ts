import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { retryDelayMs, retryDelaySeconds, type RetrySettings } from '../../src/engine/retry.js';
import { effectiveTaskDef } from '../../src/engine/task-config.js';

const base: RetrySettings = {
  retryLogic: 'FIXED',
  retryDelaySeconds: 5,
  backoffScaleFactor: 1,
  maxRetryDelaySeconds: 0,
  backoffJitterMs: 0,
};

void describe('retry delay', () => {
  const cases: Array<{
    title: string;
    settings: Partial<RetrySettings>;
    retryCount: number;
    seconds: number;
  }> = [
    { title: 'FIXED', settings: {}, retryCount: 4, seconds: 5 },
    {
      title: 'LINEAR first',
      settings: { retryLogic: 'LINEAR_BACKOFF', backoffScaleFactor: 3 },
      retryCount: 0,
      seconds: 15,
    },
    {
      title: 'LINEAR third',
      settings: { retryLogic: 'LINEAR_BACKOFF', backoffScaleFactor: 3 },
      retryCount: 2,
      seconds: 45,
    },
    {
      title: 'EXPONENTIAL first',
      settings: { retryLogic: 'EXPONENTIAL_BACKOFF' },
      retryCount: 0,
      seconds: 5,
    },
    {
      title: 'EXPONENTIAL fourth',
      settings: { retryLogic: 'EXPONENTIAL_BACKOFF' },
      retryCount: 3,
      seconds: 40,
    },
    {
      title: 'EXPONENTIAL capped',
      settings: { retryLogic: 'EXPONENTIAL_BACKOFF', maxRetryDelaySeconds: 30 },
      retryCount: 3,
      seconds: 30,
    },
    {
      title: 'cap 0 = no cap',
      settings: { retryLogic: 'EXPONENTIAL_BACKOFF' },
      retryCount: 10,
      seconds: 5120,
    },
    { title: 'zero delay', settings: { retryDelaySeconds: 0 }, retryCount: 1, seconds: 0 },
  ];
  for (const c of cases) {
    void it(c.title, () => {
      assert.equal(retryDelaySeconds({ ...base, ...c.settings }, c.retryCount), c.seconds);
      assert.equal(
        retryDelayMs({ ...base, ...c.settings }, c.retryCount, () => 0.7),
        c.seconds * 1000,
      );
    });
  }

  void it('adds floor(random × backoffJitterMs) after the cap', () => {
    const settings = {
      ...base,
      retryLogic: 'EXPONENTIAL_BACKOFF',
      maxRetryDelaySeconds: 6,
      backoffJitterMs: 250,
    } as const;
    assert.equal(
      retryDelayMs(settings, 3, () => 0),
      6000,
    );
    assert.equal(
      retryDelayMs(settings, 3, () => 0.5),
      6125,
    );
    assert.equal(
      retryDelayMs(settings, 3, () => 0.999),
      6249,
    );
  });
});

void describe('effectiveTaskDef', () => {
  void it('uses the default task settings without a task definition', () => {
    const config = effectiveTaskDef({ name: 'x', taskReferenceName: 'x' }, new Map());
    assert.equal(config.definition, undefined);
    assert.equal(config.retryCount, 3);
    assert.equal(config.retryDelaySeconds, 60);
    assert.equal(config.responseTimeoutSeconds, 3600);
    assert.equal(config.timeoutPolicy, 'TIME_OUT_WF');
    assert.equal(config.retryLogic, 'FIXED');
    assert.equal(config.backoffScaleFactor, 1);
    assert.deepEqual(config.inputTemplate, {});
  });

  void it('takes the registered definition, the inline one over it, and the task retryCount over both', () => {
    const registered = new Map([
      ['x', { name: 'x', retryCount: 1, retryDelaySeconds: 2, timeoutPolicy: 'RETRY' as const }],
    ]);
    assert.equal(effectiveTaskDef({ name: 'x', taskReferenceName: 'x' }, registered).retryDelaySeconds, 2);
    assert.equal(effectiveTaskDef({ name: 'x', taskReferenceName: 'x' }, registered).timeoutPolicy, 'RETRY');
    const inline = effectiveTaskDef(
      { name: 'x', taskReferenceName: 'x', taskDefinition: { name: 'x', retryDelaySeconds: 9 } },
      registered,
    );
    assert.equal(inline.retryDelaySeconds, 9);
    assert.equal(inline.retryCount, 3, 'inline wins whole: defaults fill what it lacks');
    assert.equal(
      effectiveTaskDef({ name: 'x', taskReferenceName: 'x', retryCount: 7 }, registered).retryCount,
      7,
    );
  });
});
