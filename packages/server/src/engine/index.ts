/**
 * The interpreter's public surface: every room outside `engine/` imports the engine through this
 * file only (the room map in docs/ARCHITECTURE.md, checked by `npm run lint`), so what the rest of
 * the server relies on is listed in one place and the files behind it may move freely.
 */
export { decide, runStatusForFailedTask, taskFailureReason } from './decide.js';
export { faultReason } from './faults.js';
export { newRunRecord } from './new-run.js';
export { runQueueSince } from './queue-order.js';
export { copyTasksForNewRun } from './run-copy.js';
export { checkWorkflowDef, workflowDefWarnings } from './validation/check-workflow-def.js';
export { checkTaskDef, compileSchema } from './validation/check-task-def.js';
export { effectiveTaskDef, TASK_DEFAULTS, type EffectiveTaskDef } from './task-config.js';
export { mayHoldTaskTimers } from './attempt-timers.js';
export { retryDelayMs, retryDelaySeconds } from './retry.js';
export { judgeResult, type ResultVerdict } from './result-acceptance.js';
export {
  pauseRejection,
  restartRejection,
  resumeRejection,
  retryRejection,
  skipRejection,
  successorNote,
  terminateRejection,
  type Rejection,
} from './run-control.js';
export { signaledTaskId } from './signals.js';
export { allTasks, findTask, isWorkerTask, kindNameOf, walkTasks, workerTaskNames } from './graph.js';
export { domainFor, queueNameFor } from './kinds/worker.js';
export { registeredKinds, taskKindOf } from './kinds/registry.js';
export {
  outsideWaiting,
  type KindWaiting,
  type WaitingFacts,
  type WaitingNeeds,
} from './kinds/waiting-explanation.js';
export {
  isSystemQueue,
  SYSTEM_CALL_ENDED_WAKE,
  SYSTEM_CALL_KINDS,
  SYSTEM_QUEUE_PREFIX,
  systemCallKindOf,
  systemQueueName,
  type SystemCallKind,
} from './kinds/system-call-names.js';
export { MAX_VARIABLES_KB } from './kinds/set-variable.js';
export { MAX_PULL_BATCH } from './kinds/pull-workflow-messages.js';
export {
  buildExpressionDocument,
  documentRefOf,
  referencedTaskRefs,
  resolveParameters,
  resolveTemplate,
  resolveValue,
  type ExpressionDocument,
} from './expressions.js';
export type * from './types.js';
export type { CheckContext, SystemCallChecks } from './kinds/kind.js';
export { noScripts, type ScriptRunner, type ScriptResult } from './scripts.js';
