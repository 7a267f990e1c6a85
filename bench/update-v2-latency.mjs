#!/usr/bin/env node
// One worker completing steps strictly one after another: the wall time of each update-v2 (the
// result posted, the next task answered), on a fresh server. What the light-load hand-off is
// made of, without the bench's other systems around it.
//   node bench/update-v2-latency.mjs [--sqlite] [--runs 60]
// Run `npx tsc -b` first.
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

import { register } from './lib/baton-system.mjs';
import { startBaton } from './lib/baton-server.mjs';
import { jsonClient } from './lib/http-json.mjs';
import { dropDatabase, freshDatabase } from './lib/pg-admin.mjs';

const { values } = parseArgs({
  options: { sqlite: { type: 'boolean', default: false }, runs: { type: 'string', default: '60' } },
});
const STEPS = 10;
const DB = 'bench_update_v2_latency';
const databaseUrl = values.sqlite ? undefined : await freshDatabase(DB);
const server = await startBaton({ databaseUrl });
const client = jsonClient(server.url, { sockets: 4 });
const updates = [];
try {
  await register(client, STEPS);
  for (let run = 0; run < Number(values.runs); run++) {
    await client.post('/api/workflow/bench_linear', { input: { run, data: 'x' } });
    const polled = await client.get('/api/tasks/poll/batch/bench_step?count=1&timeout=1000&workerid=w');
    let task = polled.body[0];
    while (task) {
      const started = performance.now();
      const res = await client.post('/api/tasks/update-v2', {
        taskId: task.taskId,
        workflowInstanceId: task.workflowInstanceId,
        workerId: 'w',
        status: 'COMPLETED',
        outputData: { data: 'y' },
      });
      updates.push(performance.now() - started);
      task = res.status === 200 ? res.body : undefined;
    }
  }
} finally {
  client.close();
  await server.stop();
  if (databaseUrl) await dropDatabase(DB);
}
updates.sort((a, b) => a - b);
const at = (p) => (updates[Math.min(updates.length - 1, Math.floor(updates.length * p))] ?? NaN).toFixed(2);
console.log(
  `update-v2 on ${values.sqlite ? 'SQLite' : 'PostgreSQL'}, one worker, ${updates.length} steps: ` +
    `p50 ${at(0.5)} ms, p90 ${at(0.9)} ms, p99 ${at(0.99)} ms`,
);
