// Time of a group-commit batch's write merge by its number of members (after `npx tsc -b`):
//   node bench/merge-writes.mjs
// Each member brings a step's deferred writes as update-v2 makes them (its task updated, the next
// inserted and enqueued, the finished one's message deleted), with a record of about 700 bytes.
// The merge runs on the batch's serial path (group-commit.ts), so its time a batch is time no
// other batch of the node can start in.
import { mergeWrites } from '../packages/server/dist/src/store-postgres/merge-writes.js';
import { SQL } from '../packages/server/dist/src/store-postgres/sql.js';

const RECORD = 'x'.repeat(700);
const rowsOf = (run, ids) => [
  JSON.stringify(ids.map((taskId) => ({ taskId, record: RECORD }))),
  ids.map(() => run),
  ids.map((id) => `ref_${id}`),
  ids.map(() => 1),
  ids,
];

/** Member `i`'s writes: ids as long as the server's (UUIDs). */
function member(i) {
  const run = `run-${i}-0123456789abcdef0123456789ab`;
  const done = `task-${i}-a-0123456789abcdef012345`;
  const next = `task-${i}-b-0123456789abcdef012345`;
  return [
    { sql: SQL.updateTasks, values: [...rowsOf(run, [done]), 1, [done]] },
    { sql: SQL.insertTasks, values: rowsOf(run, [next]) },
    { sql: SQL.enqueue, values: Array.from({ length: 12 }, (_, k) => [k === 0 ? next : `v${k}`]) },
    { sql: SQL.removeMessages, values: [[done]] },
  ];
}

// Every size warmed first, so the first one measured is not the one that pays for compiling.
const sizes = [1, 4, 8, 16, 32, 64];
const batches = new Map(sizes.map((n) => [n, Array.from({ length: n }, (_, i) => member(i))]));
for (const lists of batches.values()) for (let w = 0; w < 300; w++) mergeWrites(lists);
for (const [n, lists] of batches) {
  const reps = Math.max(200, Math.floor(20_000 / n));
  const start = process.hrtime.bigint();
  for (let r = 0; r < reps; r++) mergeWrites(lists);
  const us = Number(process.hrtime.bigint() - start) / 1e3 / reps;
  console.log(`${n} members: ${us.toFixed(1)} µs a batch, ${(us / n).toFixed(2)} µs a member`);
}
