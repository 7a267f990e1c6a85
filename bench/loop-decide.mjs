// Time of one decide as a DO_WHILE run grows (after `npx tsc -b`): node bench/loop-decide.mjs
// Each decide completes the open loop task; the average over each 1,000 decides is printed.
// The interpreter's steps read only its indexes; what grows is the one indexing pass over the
// loaded tasks; the executor loads only the decide set (engine ARCHITECTURE.md, "Cost of a step"),
// which stays small however long the loop runs, so that pass does not grow in a server.
import { decide } from '../packages/server/dist/src/engine/decide.js';
import { Engine, simple, workflow } from '../packages/server/dist/test/engine/helpers.js';
import { loadInThreadScripts } from '../packages/server/dist/src/scripting/in-thread-scripts.js';
import { scriptLimits } from '../packages/server/dist/src/scripting/limits.js';

const engine = new Engine(
  workflow([
    {
      name: 'loop',
      taskReferenceName: 'loop',
      type: 'DO_WHILE',
      loopCondition: "$.loop['iteration'] < 100000",
      inputParameters: { keepLastN: 2 },
      loopOver: [simple('a')],
    },
  ]),
);
// The interpreter alone: the sandbox in this thread, as decide sees it (the server runs scripts
// on script threads and decides again once they answered).
const scripts = await loadInThreadScripts(scriptLimits(32, 1000));
engine.scripts = scripts;
engine.verifyInputs = false;
engine.start();
let total = 0;
for (let n = 1; n <= 5000; n++) {
  const open = engine.tasks[engine.tasks.length - 1];
  const ctx = engine.plainContext();
  const started = performance.now();
  const decision = decide(ctx, {
    type: 'TASK_RESULT',
    result: { taskId: open.taskId, workflowInstanceId: 'wf-1', status: 'COMPLETED', outputData: { n } },
  });
  total += performance.now() - started;
  engine.apply(decision);
  if (n % 1000 === 0) {
    console.log(`${engine.tasks.length} tasks: ${(total / 1000).toFixed(3)} ms per decide`);
    total = 0;
  }
}
