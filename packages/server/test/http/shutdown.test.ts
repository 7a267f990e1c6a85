import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';

import { pino } from 'pino';

import { compileOptions } from '../../src/config/options.js';
import { createServer } from '../../src/server.js';
import { storeCases } from '../helpers/stores.js';

void describe('graceful stop', () => {
  const sqlite = storeCases().find((c) => c.name === 'sqlite') ?? storeCases()[0]!;

  void it('answers waiting long polls at once and stops without waiting for their timeout', async () => {
    const opened = await sqlite.open();
    const dataDir = mkdtempSync(path.join(tmpdir(), 'baton-stop-'));
    const server = await createServer({
      options: compileOptions({ BATON_DATA_DIR: dataDir, BATON_PORT: '0', BATON_LOG_LEVEL: 'silent' }),
      store: opened.store,
      logger: pino({ level: 'silent' }),
    });
    try {
      const address = await server.listen();
      const began = Date.now();
      const poll = fetch(`${address}/api/tasks/poll/batch/idle_type?count=1&timeout=5000&workerid=w`);
      // Stop only once the poll is really waiting (bounded wait on a condition). Asked of the
      // node, which counts a poll at once, not of the store, which has it a flush later (1 s).
      for (let i = 0; i < 1000; i++) {
        const data = await (await fetch(`${address}/api/tasks/queue/polldata?taskType=idle_type`)).json();
        if (Array.isArray(data) && data.length > 0) break;
        await new Promise((r) => setTimeout(r, 5));
      }
      const [response] = await Promise.all([poll, server.stop()]);
      assert.equal(response.status, 200);
      assert.deepEqual(await response.json(), []);
      assert.equal(server.state(), 'STOPPED');
      assert.ok(Date.now() - began < 4000, `stop waited for the poll timeout (${Date.now() - began} ms)`);
    } finally {
      await server.stop();
      await opened.cleanup();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
