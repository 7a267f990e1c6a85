import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import type { FastifyInstance } from 'fastify';

import { ARCHIVE_STEPS, type ArchiveStep } from '../../src/archive/archiver.js';
import { ManualClock } from '../../src/clock.js';
import { appSuite, register } from '../helpers/app-suite.js';
import { call } from '../helpers/app.js';
import { workerTaskDefs, workflowDef } from '../helpers/definitions.js';
import { pollOneTask, postResult, runOf, startRun } from '../helpers/runs.js';
import { storeCases } from '../helpers/stores.js';
import { TestS3Server } from '../helpers/s3-server.js';
import type { Store } from '../../src/store/store.js';
import { decodeArchive } from '../../src/archive/archive-document.js';

/**
 * The archive through the real routes, on every store: runs that ended more than
 * BATON_ARCHIVE_AFTER ago move to blob storage whole and read back identically; a crash at any
 * step of the move (an injected failure between each) loses nothing and leaves nothing half-moved.
 */

const HOUR = 3_600_000;

const definition = workflowDef(
  'arch_flow',
  [
    {
      name: 'arch_one',
      taskReferenceName: 'one',
      type: 'SIMPLE',
      inputParameters: { who: '${workflow.input.who}' },
    },
    {
      name: 'arch_two',
      taskReferenceName: 'two',
      type: 'SIMPLE',
      inputParameters: { got: '${one.output.said}' },
    },
  ],
  { result: '${two.output.result}' },
);

/** What `baton_housekeeping_removed_total` counts for `what` so far. */
async function housekept(app: FastifyInstance, what: string): Promise<number> {
  const res = await call(app, 'GET', '/metrics');
  const line = res.text
    .split('\n')
    .find((l) => l.startsWith(`baton_housekeeping_removed_total{what="${what}"}`));
  return line === undefined ? 0 : Number(line.split(' ').at(-1));
}

/** Runs `arch_flow` to COMPLETED, with a log line and a mailbox message; answers its id. */
async function finishedRun(app: FastifyInstance, who: string, correlationId?: string): Promise<string> {
  const id = await startRun(app, 'arch_flow', {
    input: { who },
    ...(correlationId !== undefined && { correlationId }),
  });
  const sent = await call(app, 'POST', `/api/workflow/${id}/messages`, { note: `hello ${who}` });
  assert.equal(sent.status, 200, sent.text);
  const one = await pollOneTask(app, 'arch_one');
  await postResult(app, one, 'COMPLETED', { outputData: { said: `hi ${who}` }, logs: [`greeted ${who}`] });
  const two = await pollOneTask(app, 'arch_two');
  await postResult(app, two, 'COMPLETED', { outputData: { result: who.toUpperCase() } });
  const run = await runOf(app, id);
  assert.equal(
    run.status,
    'COMPLETED',
    JSON.stringify({ one, two, q: (await call(app, 'GET', '/api/tasks/queue/sizes')).body }),
  );
  return id;
}

async function hotRowsOf(app: { store: Store }, id: string): Promise<number> {
  return app.store.read(async (tx) => {
    const run = await tx.getRun(id);
    const tasks = await tx.getRunTasks(id);
    const logs = await tx.getRunLogs(id);
    const messages = await tx.getRunMessages(id, 100);
    return (run ? 1 : 0) + tasks.length + logs.length + messages.length;
  });
}

for (const storeCase of storeCases()) {
  describe(`archive: ${storeCase.name}`, () => {
    const clock = new ManualClock(Date.UTC(2026, 2, 1));
    let failAt: ArchiveStep | undefined;
    let onStep: ((step: ArchiveStep) => Promise<void>) | undefined;
    const t = appSuite(storeCase, {
      clock,
      env: { BATON_ARCHIVE_AFTER: '1h' },
      archiveFaults: async (step) => {
        await onStep?.(step);
        if (step !== failAt) return;
        failAt = undefined;
        throw new Error(`injected crash at ${step}`);
      },
    });
    before(() => register(t.app, [definition], workerTaskDefs(['arch_one', 'arch_two'])));

    it('moves a run that ended over BATON_ARCHIVE_AFTER ago, whole, and reads it back identically', async () => {
      const id = await finishedRun(t.app, 'ada', 'corr-ada');
      const before = await runOf(t.app, id);
      const logsBefore = (await call(t.app, 'GET', `/api/tasks/${before.tasks[0].taskId}/log`)).body;
      assert.deepEqual((await t.server.archiver.runOnce()).archived, [], 'not due yet');
      clock.advance(2 * HOUR);
      const pass = await t.server.archiver.runOnce();
      assert.deepEqual(pass.archived, [id]);
      assert.equal(await housekept(t.app, 'runs_archived'), 1);
      assert.equal(await hotRowsOf(t, id), 0, 'no hot rows left');

      const after = await runOf(t.app, id);
      assert.equal(after.archived, true);
      const { archived: _a, ...rest } = after;
      assert.deepEqual(rest, before);
      // The document holds the logs and the mailbox too.
      const row = await t.store.read((tx) => tx.getArchivedRun(id));
      assert.ok(row);
      const bytes = await t.server.blobs.get(row.blobKey);
      assert.ok(bytes);
      const doc = decodeArchive(bytes, row.blobSha256, id);
      assert.deepEqual(
        doc.logs.map((l) => l.log),
        logsBefore.map((l: { log: string }) => l.log),
      );
      assert.deepEqual(
        doc.messages.map((m) => m.payload),
        [{ note: 'hello ada' }],
      );

      const noTasks = await call(t.app, 'GET', `/api/workflow/${id}?includeTasks=false`);
      assert.deepEqual(noTasks.body.tasks, []);
      const status = await call(t.app, 'GET', `/api/workflow/${id}/status?includeOutput=true`);
      assert.deepEqual(status.body, {
        workflowId: id,
        correlationId: 'corr-ada',
        status: 'COMPLETED',
        output: { result: 'ADA' },
      });
    });

    it('search, correlated and the correlated batch still find archived runs', async () => {
      const hot = await finishedRun(t.app, 'bob', 'corr-shared');
      clock.advance(2 * HOUR);
      await t.server.archiver.runOnce();
      const fresh = await finishedRun(t.app, 'cy', 'corr-shared');
      const search = await call(t.app, 'GET', '/api/workflow/search?name=arch_flow&sort=createTime:ASC');
      assert.equal(search.status, 200, search.text);
      const ids = search.body.results.map((r: { workflowId: string }) => r.workflowId);
      assert.ok(ids.includes(hot) && ids.includes(fresh));
      assert.equal(ids.indexOf(hot) < ids.indexOf(fresh), true, 'one order over both sources');
      const archivedRow = search.body.results.find((r: { workflowId: string }) => r.workflowId === hot);
      assert.equal(archivedRow.archived, true);
      assert.equal(archivedRow.status, 'COMPLETED');
      const byQuery = await call(
        t.app,
        'GET',
        `/api/workflow/search?query=${encodeURIComponent(`workflowId IN (${hot},${fresh})`)}`,
      );
      assert.equal(byQuery.body.totalHits, 2);
      const paged = await call(
        t.app,
        'GET',
        '/api/workflow/search?name=arch_flow&sort=createTime:ASC&start=1&size=1',
      );
      assert.equal(paged.body.results.length, 1);
      assert.equal(paged.body.results[0].workflowId, ids[1]);

      const correlated = await call(
        t.app,
        'GET',
        '/api/workflow/arch_flow/correlated/corr-shared?includeClosed=true&includeTasks=true',
      );
      assert.deepEqual(
        correlated.body.map((w: { workflowId: string }) => w.workflowId),
        [hot, fresh],
      );
      assert.equal(correlated.body[0].archived, true);
      assert.equal(correlated.body[0].tasks.length, 2);
      const batch = await call(t.app, 'POST', '/api/workflow/correlated/batch?includeClosed=true', {
        workflowNames: ['arch_flow'],
        correlationIds: ['corr-shared', 'corr-none'],
      });
      assert.equal(batch.status, 200, batch.text);
      assert.deepEqual(Object.keys(batch.body).sort(), ['corr-none', 'corr-shared']);
      assert.equal(batch.body['corr-shared'].length, 2);
    });

    it('restarts and reruns an archived run; retry says why it cannot', async () => {
      const id = await finishedRun(t.app, 'dee');
      clock.advance(2 * HOUR);
      await t.server.archiver.runOnce();
      const restarted = await call(t.app, 'POST', `/api/workflow/${id}/restart`);
      assert.equal(restarted.status, 200, restarted.text);
      const fresh = await runOf(t.app, restarted.text);
      assert.equal(fresh.status, 'RUNNING');
      assert.deepEqual(fresh.input, { who: 'dee' });
      assert.equal(fresh.links.restart_of, id);
      assert.deepEqual((await runOf(t.app, id)).links.restarted_by, [restarted.text]);
      const one = await pollOneTask(t.app, 'arch_one');
      assert.equal(one.workflowInstanceId, restarted.text);
      await postResult(t.app, one, 'FAILED_WITH_TERMINAL_ERROR');

      const rerun = await call(t.app, 'POST', `/api/workflow/${id}/rerun`, { reRunFromTaskRefName: 'two' });
      assert.equal(rerun.status, 200, rerun.text);
      const two = await pollOneTask(t.app, 'arch_two');
      assert.equal(two.workflowInstanceId, rerun.text);
      assert.deepEqual(two.inputData, { got: 'hi dee' }, 'the copied task output feeds the rerun task');
      await postResult(t.app, two, 'COMPLETED', { outputData: { result: 'again' } });
      assert.deepEqual((await runOf(t.app, rerun.text)).output, { result: 'again' });

      for (const [method, url] of [
        ['PUT', `/api/workflow/${id}/pause`],
        ['POST', `/api/workflow/${id}/terminate`],
        ['POST', `/api/workflow/${id}/signal`],
        ['POST', `/api/workflow/${id}/variables`],
      ] as const) {
        const res = await call(t.app, method, url, method === 'POST' ? {} : undefined);
        assert.equal(res.status, 409, `${method} ${url}: ${res.text}`);
        assert.match(res.body.message, /is archived/);
      }
      const retry = await call(t.app, 'POST', `/api/workflow/${id}/retry`);
      assert.equal(retry.status, 409);
      assert.match(retry.body.message, /archived: it cannot be retried; rerun it/);
    });

    it('prunes the definition of a one-off run once the run is removed and an hour has passed', async () => {
      const name = `one_off_${Date.now()}`;
      const oneOff = workflowDef(name, [{ name: 'arch_one', taskReferenceName: 'one', type: 'SIMPLE' }]);
      // Whatever earlier tests left unused goes first, so the counts below are this run's.
      await t.server.definitionPruner.runOnce();
      clock.advance(2 * HOUR);
      await t.server.definitionPruner.runOnce();

      const start = async (): Promise<string> => {
        const started = await call(t.app, 'POST', '/api/workflow', { name, workflowDef: oneOff });
        assert.equal(started.status, 200, started.text);
        const id = started.text;
        await postResult(t.app, await pollOneTask(t.app, 'arch_one'), 'COMPLETED', { outputData: {} });
        assert.equal((await runOf(t.app, id)).status, 'COMPLETED');
        return id;
      };
      const id = await start();
      assert.deepEqual(
        await t.server.definitionPruner.runOnce(),
        { marked: 0, deleted: 0 },
        'its run is hot',
      );
      const removed = await call(t.app, 'DELETE', `/api/workflow/${id}/remove?archiveWorkflow=false`);
      assert.equal(removed.status, 200, removed.text);
      assert.deepEqual(await t.server.definitionPruner.runOnce(), { marked: 1, deleted: 0 });
      clock.advance(30 * 60_000);
      assert.deepEqual(
        await t.server.definitionPruner.runOnce(),
        { marked: 0, deleted: 0 },
        'unused for half an hour',
      );
      clock.advance(31 * 60_000);
      const removedBefore = await housekept(t.app, 'run_definitions');
      assert.deepEqual(await t.server.definitionPruner.runOnce(), { marked: 0, deleted: 1 });
      assert.equal(await housekept(t.app, 'run_definitions'), removedBefore + 1, 'counted in /metrics');

      // The same definition started again is stored again.
      const again = await start();
      assert.deepEqual((await runOf(t.app, again)).workflowDefinition.tasks, oneOff.tasks);
    });

    it('removes runs: archiving now, deleting for good, and refusing a running one', async () => {
      const id = await finishedRun(t.app, 'eve');
      const archivedNow = await call(t.app, 'DELETE', `/api/workflow/${id}/remove`);
      assert.equal(archivedNow.status, 200, archivedNow.text);
      assert.equal((await runOf(t.app, id)).archived, true, 'archived at once, whatever its age');
      const row = await t.store.read((tx) => tx.getArchivedRun(id));
      assert.ok(row);
      const gone = await call(t.app, 'DELETE', `/api/workflow/${id}/remove?archiveWorkflow=false`);
      assert.equal(gone.status, 200, gone.text);
      assert.equal((await call(t.app, 'GET', `/api/workflow/${id}`)).status, 404);
      assert.equal(await t.server.blobs.get(row.blobKey), undefined, 'its document is deleted too');

      const hotGone = await finishedRun(t.app, 'fay');
      assert.equal(
        (await call(t.app, 'DELETE', `/api/workflow/${hotGone}/remove?archiveWorkflow=false`)).status,
        200,
      );
      assert.equal(await hotRowsOf(t, hotGone), 0);
      assert.equal((await call(t.app, 'GET', `/api/workflow/${hotGone}`)).status, 404);

      const other = await finishedRun(t.app, 'hal');
      const running = await startRun(t.app, 'arch_flow', { input: { who: 'gil' } });
      const refused = await call(t.app, 'DELETE', `/api/workflow/${running}/remove`);
      assert.equal(refused.status, 409);
      assert.match(refused.body.message, /RUNNING: terminate it before removing it/);
      assert.equal((await call(t.app, 'DELETE', '/api/workflow/nope/remove')).status, 404);

      const bulk = await call(t.app, 'DELETE', '/api/workflow/bulk/remove', [other, running, 'nope']);
      assert.equal(bulk.status, 200, bulk.text);
      assert.deepEqual(bulk.body.bulkSuccessfulResults, [other]);
      assert.deepEqual(Object.keys(bulk.body.bulkErrorResults).sort(), ['nope', running].sort());
      assert.equal((await call(t.app, 'POST', `/api/workflow/${running}/terminate`)).status, 200);
      const deleted = await call(t.app, 'POST', '/api/workflow/bulk/delete', [running, other]);
      assert.deepEqual(deleted.body.bulkSuccessfulResults, [running, other]);
      assert.equal((await call(t.app, 'GET', `/api/workflow/${other}`)).status, 404);
    });

    it('a run removed for good frees its idempotency key and drops its operator actions; an archived one keeps both', async () => {
      const startKeyed = (key: string, strategy: 'FAIL' | 'RETURN_EXISTING') =>
        call(t.app, 'POST', '/api/workflow/arch_flow', {
          input: { who: key },
          idempotencyKey: key,
          idempotencyStrategy: strategy,
        });
      const endedKeyed = async (key: string): Promise<string> => {
        const started = await startKeyed(key, 'FAIL');
        assert.equal(started.status, 200, started.text);
        assert.equal((await call(t.app, 'POST', `/api/workflow/${started.text}/terminate`)).status, 200);
        const run = await runOf(t.app, started.text);
        assert.deepEqual(
          run.operatorActions.map((a: { action: string }) => a.action),
          ['terminate'],
        );
        return started.text;
      };
      const key = `key-${Date.now()}`;

      // From the hot tables.
      const hot = await endedKeyed(`${key}-hot`);
      assert.equal((await startKeyed(`${key}-hot`, 'FAIL')).status, 409);
      const gone = await call(t.app, 'DELETE', `/api/workflow/${hot}/remove?archiveWorkflow=false`);
      assert.equal(gone.status, 200, gone.text);
      assert.deepEqual(await t.store.read((tx) => tx.getRunActions(hot)), []);
      const anew = await startKeyed(`${key}-hot`, 'FAIL');
      assert.equal(anew.status, 200, anew.text);
      assert.notEqual(anew.text, hot);

      // Archived first: the key still answers the archived run, and its actions still show.
      const archived = await endedKeyed(`${key}-arch`);
      assert.equal((await call(t.app, 'DELETE', `/api/workflow/${archived}/remove`)).status, 200);
      const again = await startKeyed(`${key}-arch`, 'RETURN_EXISTING');
      assert.equal(again.text, archived);
      const read = await runOf(t.app, archived);
      assert.equal(read.archived, true);
      assert.deepEqual(
        read.operatorActions.map((a: { action: string }) => a.action),
        ['terminate'],
      );
      // Then removed from the archive for good.
      assert.equal(
        (await call(t.app, 'DELETE', `/api/workflow/${archived}/remove?archiveWorkflow=false`)).status,
        200,
      );
      assert.deepEqual(await t.store.read((tx) => tx.getRunActions(archived)), []);
      const fresh = await startKeyed(`${key}-arch`, 'RETURN_EXISTING');
      assert.equal(fresh.status, 200, fresh.text);
      assert.notEqual(fresh.text, archived, 'a new run, not the removed one');
      // Their tasks would be polled by the tests after this one.
      for (const id of [anew.text, fresh.text])
        assert.equal((await call(t.app, 'POST', `/api/workflow/${id}/terminate`)).status, 200);
    });

    it('a crash between any two steps of the move loses nothing and leaves nothing half-moved', async () => {
      // Earlier tests' ended runs move first, so each pass below is about one run.
      clock.advance(2 * HOUR);
      await t.server.archiver.runOnce();
      for (const step of ARCHIVE_STEPS) {
        const id = await finishedRun(t.app, `crash-${step}`);
        const before = await runOf(t.app, id);
        const rowsBefore = await hotRowsOf(t, id);
        clock.advance(2 * HOUR);
        failAt = step;
        const failed = await t.server.archiver.runOnce();
        assert.deepEqual(failed.archived, [], step);
        assert.deepEqual(
          failed.failed.map((f) => f.reason),
          [`injected crash at ${step}`],
        );
        // Still whole in the hot tables, not in the archive's index.
        assert.equal(await hotRowsOf(t, id), rowsBefore, step);
        assert.equal(await t.store.read((tx) => tx.getArchivedRun(id)), undefined, step);
        assert.deepEqual(await runOf(t.app, id), before, step);
        // Its claim keeps other archivers off until it lapses; then the move starts over.
        assert.deepEqual((await t.server.archiver.runOnce()).archived, [], step);
        clock.advance(6 * 60_000);
        assert.deepEqual((await t.server.archiver.runOnce()).archived, [id], step);
        const { archived: _a, ...after } = await runOf(t.app, id);
        assert.deepEqual(after, before, step);
        assert.equal(await hotRowsOf(t, id), 0, step);
      }
    });

    it('leaves a run that changed while it was being moved, and moves it whole later', async () => {
      const id = await finishedRun(t.app, 'ivy');
      const taskId = (await runOf(t.app, id)).tasks[0].taskId;
      clock.advance(2 * HOUR);
      // A log line appended after the run was read would be lost with the hot rows: the move stands down.
      onStep = async (step) => {
        if (step !== 'verified') return;
        onStep = undefined;
        assert.equal((await call(t.app, 'POST', `/api/tasks/${taskId}/log`, 'late line')).status, 200);
      };
      assert.equal(await t.server.archiver.archiveRun(id), 'changed');
      assert.equal(await t.store.read((tx) => tx.getArchivedRun(id)), undefined);
      assert.equal(await t.server.archiver.archiveRun(id), 'archived');
      const row = await t.store.read((tx) => tx.getArchivedRun(id));
      assert.ok(row);
      const bytes = await t.server.blobs.get(row.blobKey);
      assert.ok(bytes);
      assert.ok(decodeArchive(bytes, row.blobSha256, id).logs.some((l) => l.log === 'late line'));
    });
  });
}

// One store is enough here: the blob store is what differs.
const s3Store = storeCases().find((c) => c.name === 'sqlite') ?? storeCases()[0];
assert.ok(s3Store);
describe(`archive: S3 blob storage (s3rver), ${s3Store.name}`, () => {
  const s3 = new TestS3Server();
  const clock = new ManualClock(Date.UTC(2026, 2, 1));
  const env: Record<string, string> = { BATON_ARCHIVE_AFTER: '1h' };
  before(async () => {
    await s3.start();
    Object.assign(env, s3.env('archive-test'));
  });
  after(() => s3.dispose());
  const t = appSuite(s3Store, { clock, env });
  before(() => register(t.app, [definition], workerTaskDefs(['arch_one', 'arch_two'])));

  it('moves a run into the bucket, reads it back identically, and deletes it from there', async () => {
    const id = await finishedRun(t.app, 'sam');
    const before = await runOf(t.app, id);
    clock.advance(2 * HOUR);
    assert.deepEqual((await t.server.archiver.runOnce()).archived, [id]);
    const { archived, ...after } = await runOf(t.app, id);
    assert.equal(archived, true);
    assert.deepEqual(after, before);
    const row = await t.store.read((tx) => tx.getArchivedRun(id));
    assert.ok(row);
    assert.ok(await t.server.blobs.get(row.blobKey), 'the document is in the bucket');
    assert.equal(
      (await call(t.app, 'DELETE', `/api/workflow/${id}/remove?archiveWorkflow=false`)).status,
      200,
    );
    assert.equal(await t.server.blobs.get(row.blobKey), undefined);
  });
});
