/** The interpreter's public surface, for the services. */
export { decide, runStatusForFailedTask, taskFailureReason } from './decide.js';
export { newRunRecord } from './new-run.js';
export { checkWorkflowDef } from './validation/check-workflow-def.js';
export { checkTaskDef, compileSchema } from './validation/check-task-def.js';
export { effectiveTaskDef, TASK_DEFAULTS, type EffectiveTaskDef } from './task-config.js';
export { retryDelayMs, retryDelaySeconds } from './retry.js';
export { workerTaskNames, kindNameOf, isWorkerTask } from './graph.js';
export { domainFor, queueNameFor } from './kinds/worker.js';
export {
  buildExpressionDocument,
  referencedTaskRefs,
  resolveParameters,
  resolveTemplate,
  resolveValue,
  type ExpressionDocument,
} from './expressions.js';
export type * from './types.js';
export type { CheckContext } from './kinds/kind.js';
export { noScripts, type ScriptRunner, type ScriptResult } from './scripts.js';
