import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';

import Database from 'better-sqlite3';

import { runCli, startBaton, waitFor, type BatonProcess } from './helpers/cli.js';

/**
 * `baton backup` copies a live SQLite database: a server keeps starting runs and taking worker
 * results while the real CLI copies its file from another process. The copy passes
 * `PRAGMA integrity_check`, and a server started on it holds every run and every result that was
 * acknowledged before the backup began.
 */

const TYPE = 'bk_double';
const WORKFLOW = 'bk_flow';

interface Acked {
  runId: string;
  taskId: string;
  output: { doubled: number };
}

async function call(url: string, method: string, body?: unknown): Promise<{ status: number; text: string }> {
  const res = await fetch(url, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    ...(body !== undefined && { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(30_000),
  });
  return { status: res.status, text: await res.text() };
}

async function ok(url: string, method: string, body?: unknown): Promise<string> {
  const answer = await call(url, method, body);
  if (answer.status < 200 || answer.status > 299)
    throw new Error(`${method} ${url} answered ${answer.status}: ${answer.text.slice(0, 500)}`);
  return answer.text;
}

/** Starts runs and works their tasks until stopped; remembers what the server acknowledged, in order. */
class Load {
  readonly starts: Array<{ runId: string; x: number }> = [];
  readonly results: Acked[] = [];
  private stopped = false;
  private readonly loops: Array<Promise<void>>;

  constructor(private readonly url: string) {
    this.loops = [this.starter(), this.worker('w1'), this.worker('w2')];
  }

  private async starter(): Promise<void> {
    for (let x = 0; !this.stopped; x++) {
      const runId = await ok(`${this.url}/api/workflow/${WORKFLOW}`, 'POST', { input: { x }, version: 1 });
      this.starts.push({ runId, x });
    }
  }

  private async worker(id: string): Promise<void> {
    while (!this.stopped) {
      const polled = await ok(
        `${this.url}/api/tasks/poll/batch/${TYPE}?count=8&timeout=200&workerid=${id}`,
        'GET',
      );
      const tasks = (polled === '' ? [] : JSON.parse(polled)) as Array<{
        taskId: string;
        workflowInstanceId: string;
        inputData: { x: number };
      }>;
      for (const task of tasks) {
        const output = { doubled: task.inputData.x * 2 };
        await ok(`${this.url}/api/tasks`, 'POST', {
          taskId: task.taskId,
          workflowInstanceId: task.workflowInstanceId,
          status: 'COMPLETED',
          outputData: output,
        });
        this.results.push({ runId: task.workflowInstanceId, taskId: task.taskId, output });
      }
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.loops);
  }
}

describe('baton backup (real CLI, real server writing the database)', () => {
  it('copies the live database consistently, and a server on the copy has everything acknowledged before', async () => {
    const work = mkdtempSync(path.join(tmpdir(), 'baton-backup-'));
    const dataDir = path.join(work, 'live');
    const copy = path.join(work, 'copy.db');
    const nodes: BatonProcess[] = [];
    let load: Load | undefined;
    try {
      const live = await startBaton({ dataDir });
      nodes.push(live);
      await ok(`${live.url}/api/metadata/taskdefs`, 'POST', [
        { name: TYPE, retryCount: 0, responseTimeoutSeconds: 60, ownerEmail: 'dev@baton.test' },
      ]);
      await ok(`${live.url}/api/metadata/workflow`, 'POST', {
        name: WORKFLOW,
        schemaVersion: 2,
        ownerEmail: 'dev@baton.test',
        tasks: [
          {
            name: TYPE,
            taskReferenceName: 'd',
            type: 'SIMPLE',
            inputParameters: { x: '${workflow.input.x}' },
          },
        ],
        outputParameters: { doubled: '${d.output.doubled}' },
      });

      load = new Load(live.url);
      const running = load;
      await waitFor(() => (running.results.length >= 40 ? true : undefined), {
        timeoutMs: 60_000,
        what: '40 acknowledged results before the backup',
      });
      // Everything acknowledged up to here must be in the copy.
      const startsBefore = [...running.starts];
      const resultsBefore = [...running.results];
      const backup = await runCli(['backup', copy], { env: { BATON_DATA_DIR: dataDir } });
      assert.equal(backup.code, 0, backup.stdout + backup.stderr);
      assert.match(
        backup.stdout,
        /^backed up: .*baton\.db -> .*copy\.db \(\d+ pages, \d+ bytes, integrity ok\)\n$/,
      );
      // The server kept working through the backup, and still does.
      const after = running.results.length;
      await waitFor(() => (running.results.length > after ? true : undefined), {
        timeoutMs: 30_000,
        what: 'a result acknowledged after the backup',
      });
      await running.stop();
      await live.stop();

      // A second backup to the same path is refused and leaves the first alone.
      const again = await runCli(['backup', copy], { env: { BATON_DATA_DIR: dataDir } });
      assert.equal(again.code, 1);
      assert.match(again.stderr, /copy\.db already exists: back up to a new file/);

      const db = new Database(copy, { readonly: true, fileMustExist: true });
      try {
        assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
        assert.equal(
          db.pragma('journal_mode', { simple: true }),
          'delete',
          'the copy is one self-contained file',
        );
      } finally {
        db.close();
      }
      for (const suffix of ['-wal', '-shm'])
        assert.equal(existsSync(copy + suffix), false, `no ${copy}${suffix}`);

      // Restore: the copy becomes a data directory's database.
      const restoredDir = path.join(work, 'restored');
      mkdirSync(restoredDir);
      copyFileSync(copy, path.join(restoredDir, 'baton.db'));
      const restored = await startBaton({ dataDir: restoredDir });
      nodes.push(restored);
      for (const s of startsBefore) {
        const run = JSON.parse(await ok(`${restored.url}/api/workflow/${s.runId}`, 'GET')) as {
          input: { x: number };
        };
        assert.deepEqual(run.input, { x: s.x }, `run ${s.runId} started before the backup`);
      }
      for (const r of resultsBefore) {
        const run = JSON.parse(await ok(`${restored.url}/api/workflow/${r.runId}`, 'GET')) as {
          tasks: Array<{ taskId: string; status: string; outputData: unknown }>;
        };
        const task = run.tasks.find((t) => t.taskId === r.taskId);
        assert.equal(task?.status, 'COMPLETED', `result of ${r.taskId} acknowledged before the backup`);
        assert.deepEqual(task.outputData, r.output, `output of ${r.taskId}`);
      }
      // The restored server works: a new run goes through.
      const runId = await ok(`${restored.url}/api/workflow/${WORKFLOW}`, 'POST', {
        input: { x: 21 },
        version: 1,
      });
      const final = await waitFor(
        async () => {
          const polled = await ok(
            `${restored.url}/api/tasks/poll/batch/${TYPE}?count=50&timeout=200&workerid=r`,
            'GET',
          );
          for (const t of JSON.parse(polled) as Array<{
            taskId: string;
            workflowInstanceId: string;
            inputData: { x: number };
          }>)
            await ok(`${restored.url}/api/tasks`, 'POST', {
              taskId: t.taskId,
              workflowInstanceId: t.workflowInstanceId,
              status: 'COMPLETED',
              outputData: { doubled: t.inputData.x * 2 },
            });
          const run = JSON.parse(await ok(`${restored.url}/api/workflow/${runId}`, 'GET')) as {
            status: string;
            output: unknown;
          };
          return run.status === 'COMPLETED' ? run : undefined;
        },
        { timeoutMs: 30_000, what: 'a run on the restored server to complete' },
      );
      assert.deepEqual(final.output, { doubled: 42 });
    } finally {
      await load?.stop().catch(() => {});
      for (const node of nodes) await node.stop();
      rmSync(work, { recursive: true, force: true });
    }
  });

  it('says what to use instead on PostgreSQL, and refuses a missing directory', async () => {
    const pg = await runCli(['backup', path.join(tmpdir(), 'never.db')], {
      env: { BATON_DATABASE_URL: 'postgres://baton@127.0.0.1:1/none' },
    });
    assert.equal(pg.code, 1);
    assert.match(pg.stderr, /uses PostgreSQL \(BATON_DATABASE_URL\): back it up with pg_dump/);
    assert.doesNotMatch(pg.stderr, /127\.0\.0\.1:1/, 'never the URL');
    const empty = mkdtempSync(path.join(tmpdir(), 'baton-backup-empty-'));
    try {
      const missing = await runCli(['backup', path.join(empty, 'no-such-dir', 'x.db')], {
        env: { BATON_DATA_DIR: empty },
      });
      assert.equal(missing.code, 1);
      assert.match(missing.stderr, /the directory .*no-such-dir does not exist/);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
