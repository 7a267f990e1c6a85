// A 1,000-iteration DO_WHILE with one SIMPLE task per iteration, driven through HTTP by one
// worker that polls and completes: prints the time per iteration for each 200 iterations.
// Run against a server (after `npx tsc -b`), e.g. on SQLite:
//   BATON_PORT=18081 BATON_DATA_DIR=/tmp/lb-data BATON_LOG_LEVEL=warn node packages/server/dist/src/main.js &
//   node bench/loop-http.mjs
//   kill %1
// On PostgreSQL, start the server with BATON_DATABASE_URL=postgres://…/<db> instead of the data dir.
// B=<base url> (default http://127.0.0.1:18081), ITERATIONS=<n> (default 1000), KEEP=<keepLastN>.
// SERVER_PID=<pid> (Linux) also prints the server process's CPU time per iteration, which a
// busy machine disturbs far less than the wall time (`SERVER_PID=$!` right after starting it).
import { readFileSync } from 'node:fs';

const B = process.env.B ?? 'http://127.0.0.1:18081';
const N = Number(process.env.ITERATIONS ?? 1000);
const post = (p, body) =>
  fetch(B + p, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
await post('/api/metadata/taskdefs', [
  { name: 'step', retryCount: 0, responseTimeoutSeconds: 60, ownerEmail: 'a@b.c' },
]);
const r = await post('/api/metadata/workflow?overwrite=true', {
  name: 'loop1k',
  version: 1,
  ownerEmail: 'a@b.c',
  tasks: [
    {
      name: 'loop',
      taskReferenceName: 'loop',
      type: 'DO_WHILE',
      loopCondition: `$.loop['iteration'] < ${N}`,
      inputParameters: { keepLastN: Number(process.env.KEEP ?? 0) || undefined },
      loopOver: [{ name: 'step', taskReferenceName: 'step', type: 'SIMPLE' }],
    },
  ],
});
if (!r.ok) throw new Error(await r.text());
const id = await (await post('/api/workflow/loop1k', { input: {} })).text();
/** CPU milliseconds (user + system) the server process has used, from /proc (100 ticks/s). */
const serverCpu = () => {
  if (!process.env.SERVER_PID) return 0;
  const fields = readFileSync(`/proc/${process.env.SERVER_PID}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
};
let t = performance.now();
let cpu = serverCpu();
for (let i = 1; i <= N; i++) {
  const task = await (await fetch(`${B}/api/tasks/poll/batch/step?count=1&timeout=1000&workerid=w`)).json();
  if (task.length !== 1) throw new Error(`no task at ${i}`);
  await post('/api/tasks', {
    taskId: task[0].taskId,
    workflowInstanceId: id,
    status: 'COMPLETED',
    outputData: { i },
  });
  if (i % 200 === 0) {
    const cpuNote = process.env.SERVER_PID ? `, server CPU ${((serverCpu() - cpu) / 200).toFixed(2)} ms` : '';
    console.log(
      `iterations ${i - 199}-${i}: ${((performance.now() - t) / 200).toFixed(2)} ms per iteration${cpuNote}`,
    );
    t = performance.now();
    cpu = serverCpu();
  }
}
const run = await (await fetch(`${B}/api/workflow/${id}`)).json();
console.log(run.status, run.tasks.length, 'tasks');
