import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';

import { pino } from 'pino';

import { compileOptions } from '../../src/config/options.js';
import { type BatonServer, createServer } from '../../src/server.js';
import { openPostgresStore } from '../../src/store-postgres/postgres-store.js';
import { storeCases } from '../helpers/stores.js';
import { BOOTSTRAP, send } from './auth-fixture.js';

const pg = storeCases().find((c) => c.name === 'postgres');

// Runs where PostgreSQL is among the enabled stores (BATON_TEST_STORES).
if (pg) {
  void describe('auth: several nodes on one PostgreSQL database', () => {
    void it('nodes starting together agree on one signing key: a token from one works on the other', async () => {
      const opened = await pg.open();
      const url = opened.url ?? '';
      const dirs: string[] = [];
      const nodes: BatonServer[] = [];
      try {
        const start = async (): Promise<BatonServer> => {
          const dir = mkdtempSync(path.join(tmpdir(), 'baton-auth-node-'));
          dirs.push(dir);
          const server = await createServer({
            options: compileOptions({
              BATON_DATA_DIR: dir,
              BATON_AUTH_BOOTSTRAP_KEY_ID: BOOTSTRAP.keyId,
              BATON_AUTH_BOOTSTRAP_KEY_SECRET: BOOTSTRAP.keySecret,
            }),
            store: openPostgresStore({ url, poolSize: 3 }),
            logger: pino({ level: 'silent' }),
            timerLoop: false,
          });
          await server.app.ready();
          return server;
        };
        // Both start at once: both try to make the key and bootstrap the admin.
        nodes.push(...(await Promise.all([start(), start()])));
        const [a, b] = nodes;
        assert.ok(a && b);
        const token = (await send(a.app, 'POST', '/api/token', { body: BOOTSTRAP })).body.token as string;
        const onB = await send(b.app, 'GET', '/api/applications', { token });
        assert.equal(onB.status, 200, onB.text);
        // An application made on one node, its key exchanged on the other.
        const app = (await send(b.app, 'POST', '/api/applications', { token, body: { name: 'n' } })).body;
        assert.equal(
          (await send(a.app, 'POST', `/api/applications/${app.id}/roles/METADATA_MANAGER`, { token })).status,
          200,
        );
        const key = (await send(a.app, 'POST', `/api/applications/${app.id}/accessKeys`, { token })).body;
        const meta = (
          await send(b.app, 'POST', '/api/token', { body: { keyId: key.id, keySecret: key.secret } })
        ).body.token as string;
        assert.equal((await send(a.app, 'GET', '/api/metadata/taskdefs', { token: meta })).status, 200);
        assert.equal((await send(a.app, 'GET', '/api/applications', { token: meta })).status, 403);
        const roles = (await send(a.app, 'GET', `/api/applications/${app.id}`, { token })).body.roles;
        assert.deepEqual(roles, ['metadata']);
        const signingKeys = await opened.store.read((tx) => tx.listAuthRecords('signing_key'));
        assert.equal(signingKeys.length, 1);
      } finally {
        for (const n of nodes) await n.stop();
        await opened.cleanup();
        for (const d of dirs) rmSync(d, { recursive: true, force: true });
      }
    });
  });
}
