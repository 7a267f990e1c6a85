import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';

import {
  orkesConductorClient,
  TaskManager,
  type ConductorLogger,
  type ConductorWorker,
} from '@io-orkes/conductor-javascript';
import type { Workflow } from '@baton/protocol';

import {
  freePort,
  http,
  repoRoot,
  serverEntry,
  startBaton,
  waitFor,
  type BatonProcess,
  type HttpAnswer,
} from '../helpers/baton-process.js';
import { workerTaskDefs, workflowDef } from '../helpers/definitions.js';

/**
 * A Baton process with authentication on (a bootstrap admin key given by setting), worked by
 * Conductor's JavaScript SDK configured with nothing but an application's key id and secret;
 * and a node bound beyond loopback with no auth settings, which must refuse to start.
 */

const BOOTSTRAP_KEY = 'e2e-bootstrap-key';
const BOOTSTRAP_SECRET = 'e2e-bootstrap-secret-0123456789';
const MINE = 'e2e_auth_mine';
const THEIRS = 'e2e_auth_theirs';

async function as(token: string, method: string, url: string, body?: unknown): Promise<HttpAnswer> {
  return http(method, url, body, { headers: { authorization: `Bearer ${token}` } });
}

async function ok(answer: Promise<HttpAnswer>, what: string): Promise<HttpAnswer> {
  const res = await answer;
  assert.ok(res.status >= 200 && res.status < 300, `${what}: ${res.status} ${res.text}`);
  return res;
}

interface Exchange {
  method: string;
  path: string;
  status: number;
}

function recordingFetch(exchanges: Exchange[]): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    const [href, method] =
      input instanceof Request
        ? [input.url, init?.method ?? input.method]
        : [typeof input === 'string' ? input : input.href, init?.method ?? 'GET'];
    exchanges.push({ method, path: new URL(href).pathname, status: response.status });
    return response;
  };
}

void describe('e2e: authentication on a Baton process', () => {
  void it(
    'a Conductor SDK worker with an application key completes its type and is refused for another',
    { timeout: 120_000 },
    async () => {
      for (const key of Object.keys(process.env)) if (key.startsWith('CONDUCTOR_')) delete process.env[key];
      let baton: BatonProcess | undefined;
      let manager: TaskManager | undefined;
      let stopRefresh: (() => void) | undefined;
      try {
        baton = await startBaton({
          name: 'auth-sdk',
          env: {
            BATON_AUTH_BOOTSTRAP_KEY_ID: BOOTSTRAP_KEY,
            BATON_AUTH_BOOTSTRAP_KEY_SECRET: BOOTSTRAP_SECRET,
          },
        });
        const base = baton.url;
        // Without a token nothing is served but /health.
        assert.equal((await http('GET', `${base}/api/metadata/taskdefs`)).status, 401);
        const admin = (
          (
            await ok(
              http('POST', `${base}/api/token`, { keyId: BOOTSTRAP_KEY, keySecret: BOOTSTRAP_SECRET }),
              'token',
            )
          ).body as { token: string }
        ).token;

        await ok(
          as(admin, 'POST', `${base}/api/metadata/taskdefs`, workerTaskDefs([MINE, THEIRS])),
          'taskdefs',
        );
        for (const type of [MINE, THEIRS]) {
          const def = workflowDef(`wf_${type}`, [{ name: type, taskReferenceName: 'only', type: 'SIMPLE' }]);
          await ok(as(admin, 'POST', `${base}/api/metadata/workflow`, def), 'workflow');
        }
        // The worker's application: a worker of MINE only, one access key.
        const app = (await ok(as(admin, 'POST', `${base}/api/applications`, { name: 'sdk-workers' }), 'app'))
          .body as { id: string };
        await ok(as(admin, 'POST', `${base}/api/applications/${app.id}/roles/worker:${MINE}`), 'role');
        const key = (await ok(as(admin, 'POST', `${base}/api/applications/${app.id}/accessKeys`), 'key'))
          .body as {
          id: string;
          secret: string;
        };

        const mine = (await ok(as(admin, 'POST', `${base}/api/workflow/wf_${MINE}`, {}), 'start')).text;
        const theirs = (await ok(as(admin, 'POST', `${base}/api/workflow/wf_${THEIRS}`, {}), 'start')).text;

        const exchanges: Exchange[] = [];
        const logger: ConductorLogger = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };
        const client = await orkesConductorClient(
          { serverUrl: base, keyId: key.id, keySecret: key.secret, logger },
          recordingFetch(exchanges),
        );
        // The client refreshes its token on an interval, which would keep this process alive.
        stopRefresh = () => client.stopBackgroundRefresh();
        const executed: string[] = [];
        const workers: ConductorWorker[] = [MINE, THEIRS].map((type) => ({
          taskDefName: type,
          execute: (task) => {
            executed.push(task.taskType ?? '');
            return Promise.resolve({ status: 'COMPLETED' as const, outputData: { by: 'sdk' } });
          },
        }));
        manager = new TaskManager(client, workers, {
          logger,
          options: { workerID: 'sdk-auth', pollInterval: 50, concurrency: 1, batchPollingTimeout: 500 },
        });
        manager.startPolling();

        const run = await waitFor(
          async () => {
            const r = (await as(admin, 'GET', `${base}/api/workflow/${mine}`)).body as Workflow;
            return r.status === 'COMPLETED' ? r : undefined;
          },
          { timeoutMs: 30_000, what: 'the SDK worker to complete its run' },
        );
        assert.deepEqual(run.tasks[0]?.outputData, { by: 'sdk' });
        // The other type's polls were refused with 403 and its task never left the queue.
        await waitFor(
          () =>
            exchanges.some((e) => e.path === `/api/tasks/poll/batch/${THEIRS}` && e.status === 403)
              ? true
              : undefined,
          { timeoutMs: 30_000, what: 'a refused poll of the other type' },
        );
        await manager.stopPolling();
        manager = undefined;
        const other = (await as(admin, 'GET', `${base}/api/workflow/${theirs}`)).body as Workflow;
        assert.equal(other.status, 'RUNNING');
        assert.equal(other.tasks[0]?.status, 'SCHEDULED');
        assert.deepEqual(executed, [MINE]);
        assert.ok(
          exchanges.some((e) => e.path === '/api/token' && e.status === 200),
          'the SDK fetched a token',
        );
        assert.ok(
          exchanges.every((e) => e.path !== `/api/tasks/poll/batch/${MINE}` || e.status === 200),
          'polls of its own type were served',
        );
      } finally {
        if (manager) await manager.stopPolling();
        stopRefresh?.();
        await baton?.stop();
      }
    },
  );

  void it(
    'a node bound to 0.0.0.0 with no auth settings refuses to start and says how to fix it',
    { timeout: 60_000 },
    async () => {
      const env: NodeJS.ProcessEnv = { ...process.env };
      for (const key of Object.keys(env)) if (key.startsWith('BATON_')) delete env[key];
      Object.assign(env, {
        BATON_HOST: '0.0.0.0',
        BATON_PORT: String(await freePort()),
        BATON_DATA_DIR: '/nonexistent/never-made',
      });
      const child = spawn(process.execPath, [serverEntry], {
        cwd: repoRoot,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
      assert.equal(code, 2, stderr);
      assert.match(stderr, /beyond loopback/);
      assert.match(stderr, /BATON_AUTH_ISSUER/);
      assert.match(stderr, /BATON_AUTH=none/);
    },
  );

  void it(
    'BATON_AUTH=none serves beyond loopback (a gateway checks callers)',
    { timeout: 60_000 },
    async () => {
      const baton = await startBaton({
        name: 'auth-none',
        env: { BATON_HOST: '0.0.0.0', BATON_AUTH: 'none' },
      });
      try {
        assert.equal((await http('GET', `${baton.url}/api/metadata/taskdefs`)).status, 200);
        assert.equal(
          (await http('POST', `${baton.url}/api/token`, { keyId: 'x', keySecret: 'y' })).status,
          404,
        );
      } finally {
        await baton.stop();
      }
    },
  );
});
