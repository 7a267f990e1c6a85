// Event handler throughput through RabbitMQ: MESSAGES messages published to a queue, each starting
// a one-step run through an active handler (inbox claim, run, execution and ack per message).
// Prints messages/s from the first publish to the last run. Run against a server with
// BATON_AMQP_URL set (after `npx tsc -b`), e.g. on SQLite:
//   BATON_PORT=18082 BATON_DATA_DIR=/tmp/ev-data BATON_AMQP_URL=amqp://guest:guest@127.0.0.1:5672 \
//     BATON_LOG_LEVEL=warn node packages/server/dist/src/main.js &
//   node bench/events-amqp.mjs
//   kill %1
// On PostgreSQL, start the server with BATON_DATABASE_URL=postgres://…/<db> instead of the data dir.
// B=<base url> (default http://127.0.0.1:18082), MESSAGES=<n> (default 2000), AMQP=<url>.
import { createRequire } from 'node:module';

const require = createRequire(new URL('../packages/server/package.json', import.meta.url));
const amqp = require('amqplib');

const B = process.env.B ?? 'http://127.0.0.1:18082';
const N = Number(process.env.MESSAGES ?? 2000);
const AMQP = process.env.AMQP ?? 'amqp://guest:guest@127.0.0.1:5672';
const tag = Date.now().toString(36);
const queue = `bench-events-${tag}`;
const workflow = `bench_events_${tag}`;

const send = async (method, path, body) => {
  const res = await fetch(B + path, {
    method,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
};
await send('POST', '/api/metadata/workflow', {
  name: workflow,
  tasks: [{ name: 'n', taskReferenceName: 'n', type: 'NOOP' }],
});
await send('POST', '/api/event', {
  name: `bench-${tag}`,
  event: `amqp:${queue}`,
  active: true,
  actions: [{ action: 'start_workflow', start_workflow: { name: workflow, input: { i: '${i}' } } }],
});
await new Promise((resolve) => setTimeout(resolve, 1500));

const runs = async () =>
  (await (await fetch(`${B}/api/workflow/search?name=${workflow}&size=1`)).json()).totalHits;
const connection = await amqp.connect(AMQP);
const channel = await connection.createConfirmChannel();
await channel.assertQueue(queue, { durable: true });
const started = performance.now();
for (let i = 0; i < N; i++) {
  channel.sendToQueue(queue, Buffer.from(JSON.stringify({ i })), {
    persistent: true,
    messageId: `${tag}-${i}`,
  });
}
await channel.waitForConfirms();
while ((await runs()) < N) await new Promise((resolve) => setTimeout(resolve, 50));
const seconds = (performance.now() - started) / 1000;
console.log(`${N} messages → ${N} runs in ${seconds.toFixed(2)} s: ${(N / seconds).toFixed(0)} messages/s`);
await channel.deleteQueue(queue);
await connection.close();
