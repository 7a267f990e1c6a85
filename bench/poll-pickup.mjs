#!/usr/bin/env node
// How soon a waiting worker gets new work: one worker's long poll (batch poll, one slot) waits,
// a run of the bench's workflow starts, and the time from sending the start to the poll's answer
// is taken; the worker then completes the task with POST /api/tasks (the path most Conductor
// workers take) while its next long poll already waits for the run's next step, whose pick-up is
// timed from sending the result. One run at a time; the first `--warm` runs are left out.
// The node's `baton_tasks_handed_to_waiting_polls_total` says how many tasks went to the waiting
// poll from the transaction that queued them (docs/design/task-lifecycle.md, "Waiting polls").
//   node bench/poll-pickup.mjs [--sqlite] [--runs 400] [--warm 100] [--steps 2]
// Run `npx tsc -b` first.
import os from 'node:os';
import { parseArgs } from 'node:util';

import { register } from './lib/baton-system.mjs';
import { startBaton } from './lib/baton-server.mjs';
import { jsonClient } from './lib/http-json.mjs';
import { dropDatabase, freshDatabase } from './lib/pg-admin.mjs';

const { values } = parseArgs({
  options: {
    sqlite: { type: 'boolean', default: false },
    runs: { type: 'string', default: '400' },
    warm: { type: 'string', default: '100' },
    steps: { type: 'string', default: '2' },
  },
});
const runs = Number(values.runs);
const warm = Number(values.warm);
const steps = Number(values.steps);
const DB = 'bench_pickup';
const WORKER = 'pickup-worker';

const databaseUrl = values.sqlite ? undefined : await freshDatabase(DB);
const server = await startBaton({ databaseUrl });
// Two sockets: the waiting poll holds one while the start or the result goes on the other.
const client = jsonClient(server.url, { sockets: 4 });
const afterStart = [];
const afterResult = [];
try {
  await register(client, steps);
  const poll = () => client.get(`/api/tasks/poll/batch/bench_step?count=1&timeout=5000&workerid=${WORKER}`);
  /** Waits until the node counts `n` waiting polls, so that the timed request finds one parked. */
  const parked = async (n) => {
    for (let i = 0; i < 2_000; i++) {
      const { body } = await client.get('/metrics');
      if (new RegExp(`^baton_polls_waiting ${n}$`, 'm').test(body)) return;
      // A build before the gauge (for A/B runs): its poll is waiting by the time this answered.
      if (!body.includes('baton_polls_waiting')) return;
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    throw new Error('the long poll did not start waiting');
  };
  for (let run = 0; run < runs; run++) {
    let waiting = poll();
    await parked(1);
    let sent = performance.now();
    void client.post('/api/workflow/bench_linear', { input: { run, data: {} } });
    for (let step = 0; step < steps; step++) {
      const [task] = (await waiting).body;
      const took = performance.now() - sent;
      if (!task) throw new Error(`run ${run} step ${step}: the poll answered nothing`);
      if (run >= warm) (step === 0 ? afterStart : afterResult).push(took);
      if (step + 1 < steps) {
        waiting = poll();
        await parked(1);
      }
      sent = performance.now();
      await client.post('/api/tasks', {
        taskId: task.taskId,
        workflowInstanceId: task.workflowInstanceId,
        workerId: WORKER,
        status: 'COMPLETED',
        outputData: { data: {} },
      });
    }
  }
  const { body: metrics } = await client.get('/metrics');
  const handed = /^baton_tasks_handed_to_waiting_polls_total\{task_type="bench_step"\} (\d+)$/m.exec(metrics);
  const q = (samples, p) => samples[Math.floor(p * (samples.length - 1))]?.toFixed(2) ?? '-';
  const line = (what, samples) => {
    samples.sort((a, b) => a - b);
    return `${what}: p50 ${q(samples, 0.5)} ms, p90 ${q(samples, 0.9)}, p99 ${q(samples, 0.99)} (${samples.length})`;
  };
  console.log(
    `Baton on ${values.sqlite ? 'SQLite' : 'PostgreSQL'}, a waiting long poll's pick-up, ${runs - warm} runs of ${steps} steps (${warm} left out)`,
  );
  console.log(line('start → first step picked up', afterStart));
  if (steps > 1) console.log(line('result (POST /api/tasks) → next step picked up', afterResult));
  console.log(
    `tasks handed to the waiting poll by the transaction that queued them: ${handed?.[1] ?? 0} of ${runs * steps}`,
  );
  console.log(
    `Machine: ${os.cpus().length} × ${os.cpus()[0]?.model.trim() ?? 'unknown'}, Node ${process.version}`,
  );
} finally {
  client.close();
  await server.stop();
  if (databaseUrl) await dropDatabase(DB);
}
