/**
 * A worker process that takes one task and then hangs on to it without ever answering, so a
 * test can kill it with SIGKILL mid-task. Usage: node hold-worker.js <baseUrl> <taskType> <workerId>.
 * Prints one JSON line `{"taskId": …}` on stdout once it holds a task.
 */
const [baseUrl, taskType, workerId] = process.argv.slice(2);
if (!baseUrl || !taskType || !workerId) {
  process.stderr.write('usage: hold-worker <baseUrl> <taskType> <workerId>\n');
  process.exit(2);
}

async function main(): Promise<void> {
  const query = new URLSearchParams({ count: '1', timeout: '1000', workerid: workerId! });
  for (;;) {
    const res = await fetch(`${baseUrl}/api/tasks/poll/batch/${taskType}?${query.toString()}`);
    const body = (await res.json()) as Array<{ taskId: string }>;
    const task = body[0];
    if (task) {
      process.stdout.write(`${JSON.stringify({ taskId: task.taskId })}\n`);
      // Busy "working" forever: only a kill ends this process.
      setInterval(() => {}, 60_000);
      return;
    }
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`hold-worker: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
