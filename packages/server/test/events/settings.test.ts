import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { ConfigError, compileOptions, publicSettings } from '../../src/config/options.js';

void describe('event and broker settings', () => {
  void it('refuses broker URLs of the wrong scheme and numbers out of range, naming the setting', () => {
    assert.throws(
      () => compileOptions({ BATON_AMQP_URL: 'http://x' }),
      (e: unknown) => e instanceof ConfigError && /BATON_AMQP_URL/.test(e.message),
    );
    assert.throws(
      () => compileOptions({ BATON_NATS_URL: 'amqp://x' }),
      /BATON_NATS_URL must start with nats:\/\//,
    );
    assert.throws(
      () => compileOptions({ BATON_EVENT_RETENTION_DAYS: '0' }),
      /BATON_EVENT_RETENTION_DAYS must be an integer from 1/,
    );
    assert.throws(() => compileOptions({ BATON_EVENT_REFRESH_MS: 'soon' }), /BATON_EVENT_REFRESH_MS/);
    assert.throws(() => compileOptions({ BATON_NATS_ACK_WAIT_MS: '10' }), /BATON_NATS_ACK_WAIT_MS/);
  });

  void it('defaults, and never shows broker URLs (they carry passwords)', () => {
    const options = compileOptions({});
    assert.equal(options.amqpUrl, undefined);
    assert.equal(options.eventExecutionRetentionDays, 7);
    assert.equal(options.eventHandlerRefreshMs, 1000);
    assert.equal(options.natsAckWaitMs, 30_000);
    const raw = {
      BATON_AMQP_URL: 'amqp://user:secret@host:5672',
      BATON_NATS_URL: 'nats://user:secret@host:4222',
    };
    const shown = publicSettings(compileOptions(raw), raw);
    assert.equal(shown.BATON_AMQP_URL, '(set)');
    assert.equal(shown.BATON_NATS_URL, '(set)');
    assert.ok(!JSON.stringify(shown).includes('secret'));
  });
});
