import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { ScheduleExecutionRow } from '../../../src/store/store.js';
import { storeSuite } from '../../helpers/store-suite.js';
import { storeCases } from '../../helpers/stores.js';
import { T0, uid } from '../fixtures.js';

for (const c of storeCases()) {
  void describe(`store: events, outbox, schedules, instructions (${c.name})`, () => {
    const { store } = storeSuite(c);

    void it('keeps event handlers and moves the change counter on every write', async () => {
      const name = uid('h-');
      const v0 = await store.read((tx) => tx.events.eventHandlersVersion());
      const h = {
        name,
        event: 'amqp:q',
        active: true,
        handler: { name, x: 1 },
        createTime: T0,
        updateTime: T0,
      };
      assert.equal(await store.transaction((tx) => tx.events.insertEventHandler(h)), true);
      assert.equal(
        await store.transaction((tx) => tx.events.insertEventHandler(h)),
        false,
        'a name exists once',
      );
      const v1 = await store.read((tx) => tx.events.eventHandlersVersion());
      assert.ok(v1 > v0);
      assert.equal(
        await store.transaction((tx) =>
          tx.events.updateEventHandler({ ...h, active: false, updateTime: T0 + 5 }),
        ),
        true,
      );
      const read = await store.read((tx) => tx.events.getEventHandler(name));
      assert.equal(read?.active, false);
      assert.equal(read?.createTime, T0);
      assert.equal(read?.updateTime, T0 + 5);
      assert.ok((await store.read((tx) => tx.events.eventHandlersVersion())) > v1);
      assert.equal(
        await store.transaction((tx) => tx.events.updateEventHandler({ ...h, name: uid('none-') })),
        false,
      );
      assert.ok((await store.read((tx) => tx.events.listEventHandlers())).some((x) => x.name === name));
      assert.equal(await store.transaction((tx) => tx.events.deleteEventHandler(name)), true);
      assert.equal(await store.transaction((tx) => tx.events.deleteEventHandler(name)), false);
    });

    void it('claims an inbox entry once per source and message id', async () => {
      const id = uid('m-');
      assert.equal(await store.transaction((tx) => tx.events.claimInbox('amqp:a', id, T0)), true);
      assert.equal(await store.transaction((tx) => tx.events.claimInbox('amqp:a', id, T0)), false);
      assert.equal(
        await store.transaction((tx) => tx.events.claimInbox('nats:a', id, T0)),
        true,
        'another source',
      );
      // A claim in a transaction that rolls back leaves nothing behind.
      const other = uid('m-');
      await assert.rejects(
        store.transaction(async (tx) => {
          await tx.events.claimInbox('amqp:a', other, T0);
          throw new Error('rollback');
        }),
      );
      assert.equal(await store.transaction((tx) => tx.events.claimInbox('amqp:a', other, T0)), true);
    });

    void it('lists executions newest first with paging, and prunes old ones', async () => {
      const handler = uid('h-');
      const rows = [0, 1, 2, 3, 4].map((i) => ({
        id: `${handler}-${i}`,
        handler,
        messageId: `m${i}`,
        created: T0 + i * 1000,
        record: { id: `${handler}-${i}`, status: 'COMPLETED' },
      }));
      await store.transaction((tx) => tx.events.insertEventExecutions(rows));
      const page = await store.read((tx) => tx.events.listEventExecutions(handler, 1, 2));
      assert.equal(page.totalHits, 5);
      assert.deepEqual(
        page.results.map((r) => r.id),
        [`${handler}-3`, `${handler}-2`],
      );
      assert.ok((await store.transaction((tx) => tx.events.pruneEventExecutions(T0 + 2000))) >= 2);
      assert.equal((await store.read((tx) => tx.events.listEventExecutions(handler, 0, 10))).totalHits, 3);
    });

    void it('reads the outbox in the order it was written; one relay holds the lease', async () => {
      const sink = `amqp:${uid('s-')}`;
      await store.transaction((tx) =>
        tx.events.appendOutbox(
          [0, 1, 2].map((i) => ({ sink, messageId: `e${i}`, payload: { i }, createdAt: T0 })),
        ),
      );
      const rows = (await store.read((tx) => tx.events.readOutbox(1000))).filter((r) => r.sink === sink);
      assert.deepEqual(
        rows.map((r) => r.payload.i),
        [0, 1, 2],
      );
      assert.ok(rows[0] !== undefined && rows[1] !== undefined && rows[0].seq < rows[1].seq);
      const a = uid('node-');
      const b = uid('node-');
      await store.transaction((tx) => tx.events.releaseRelayLease(a));
      // Any earlier holder's lease is long gone at T0 + 10^12.
      const far = T0 + 1e12;
      assert.equal(await store.transaction((tx) => tx.events.takeRelayLease(a, far, 10_000)), true);
      assert.equal(await store.transaction((tx) => tx.events.takeRelayLease(b, far + 1, 10_000)), false);
      assert.equal(
        await store.transaction((tx) => tx.events.takeRelayLease(a, far + 2, 10_000)),
        true,
        'renewed',
      );
      assert.equal(
        await store.transaction((tx) => tx.events.takeRelayLease(b, far + 20_000, 10_000)),
        true,
        'lapsed',
      );
      await store.transaction((tx) => tx.events.releaseRelayLease(b));
      await store.transaction((tx) => tx.events.deleteOutbox(rows.map((r) => r.seq)));
      assert.equal(
        (await store.read((tx) => tx.events.readOutbox(1000))).filter((r) => r.sink === sink).length,
        0,
      );
    });

    void it('claims each schedule slot once and answers the latest slot', async () => {
      const name = uid('sch-');
      await store.transaction((tx) =>
        tx.events.upsertSchedule({
          name,
          workflowName: 'wf',
          paused: false,
          record: { name, cronExpression: '* * * * * *' },
          createTime: T0,
          updateTime: T0,
        }),
      );
      assert.equal((await store.read((tx) => tx.events.getSchedule(name)))?.workflowName, 'wf');
      const slot = (t: number, state: ScheduleExecutionRow['state'] = 'EXECUTED'): ScheduleExecutionRow => ({
        executionId: uid('x-'),
        scheduleName: name,
        scheduledTime: t,
        executionTime: t + 3,
        state,
        record: { workflowId: 'w' },
      });
      assert.equal(await store.transaction((tx) => tx.events.claimScheduleSlot(slot(T0))), true);
      assert.equal(
        await store.transaction((tx) => tx.events.claimScheduleSlot(slot(T0))),
        false,
        'slot taken',
      );
      assert.equal(
        await store.transaction((tx) => tx.events.claimScheduleSlot(slot(T0 + 1000, 'SKIPPED'))),
        true,
      );
      assert.equal(await store.read((tx) => tx.events.lastScheduledTime(name)), T0 + 1000);
      const page = await store.read((tx) => tx.events.listScheduleExecutions(name, 0, 10));
      assert.equal(page.totalHits, 2);
      assert.equal(page.results[0]?.state, 'SKIPPED');
      assert.equal(await store.read((tx) => tx.events.lastScheduledTime(uid('none-'))), undefined);
      assert.equal(await store.transaction((tx) => tx.events.deleteSchedule(name)), true);
    });

    void it("prunes schedule executions past a time, oldest first, but never a schedule's latest slot", async () => {
      const T1 = T0 + 1e9;
      // What earlier tests left goes first, so the counts below are this test's.
      await store.transaction((tx) => tx.events.pruneScheduleExecutions(T1 - 1, 1000));
      const [often, once] = [uid('often-'), uid('once-')];
      const slot = (name: string, t: number): ScheduleExecutionRow => ({
        executionId: uid('x-'),
        scheduleName: name,
        scheduledTime: t,
        executionTime: t + 3,
        state: 'EXECUTED',
        record: {},
      });
      await store.transaction(async (tx) => {
        for (const row of [
          slot(often, T1),
          slot(often, T1 + 1000),
          slot(often, T1 + 2000),
          slot(once, T1 + 500),
        ])
          assert.equal(await tx.events.claimScheduleSlot(row), true);
      });
      const times = async (name: string): Promise<number[]> =>
        (await store.read((tx) => tx.events.listScheduleExecutions(name, 0, 10))).results.map(
          (r) => r.scheduledTime,
        );

      assert.equal(
        await store.transaction((tx) => tx.events.pruneScheduleExecutions(T1 + 10_000, 1)),
        1,
        'a batch',
      );
      assert.deepEqual(await times(often), [T1 + 2000, T1 + 1000], 'the oldest went first');
      assert.equal(await store.transaction((tx) => tx.events.pruneScheduleExecutions(T1 + 10_000, 100)), 1);
      assert.deepEqual(await times(often), [T1 + 2000], 'its latest slot stays');
      assert.deepEqual(await times(once), [T1 + 500], 'a schedule with one slot keeps it');
      assert.equal(await store.read((tx) => tx.events.lastScheduledTime(often)), T1 + 2000);

      await store.transaction((tx) => tx.events.claimScheduleSlot(slot(often, T1 + 3000)));
      assert.equal(
        await store.transaction((tx) => tx.events.pruneScheduleExecutions(T1 + 2000, 100)),
        0,
        'ran at T1 + 2003: not before',
      );
      assert.equal(await store.transaction((tx) => tx.events.pruneScheduleExecutions(T1 + 2004, 100)), 1);
      assert.deepEqual(await times(often), [T1 + 3000]);
    });

    void it('keeps instruction versions and answers the latest', async () => {
      const name = uid('ins-');
      const row = (version: number, text: string) => ({
        name,
        version,
        text,
        contentType: 'text/plain',
        createTime: T0,
      });
      assert.equal(await store.transaction((tx) => tx.events.insertInstruction(row(1, 'one'))), true);
      assert.equal(await store.transaction((tx) => tx.events.insertInstruction(row(1, 'again'))), false);
      assert.equal(await store.transaction((tx) => tx.events.insertInstruction(row(2, 'two'))), true);
      assert.equal((await store.read((tx) => tx.events.getInstruction(name)))?.text, 'two');
      assert.equal((await store.read((tx) => tx.events.getInstruction(name, 1)))?.text, 'one');
      assert.equal(await store.read((tx) => tx.events.latestInstructionVersion(name)), 2);
      assert.equal(await store.transaction((tx) => tx.events.deleteInstruction(name, 2)), true);
      assert.equal((await store.read((tx) => tx.events.getInstruction(name)))?.text, 'one');
    });

    void it('refuses writes inside read()', async () => {
      await assert.rejects(
        store.read((tx) => tx.events.claimInbox('amqp:x', uid('m-'), T0)),
        /is a write and cannot run inside read/,
      );
    });
  });
}
