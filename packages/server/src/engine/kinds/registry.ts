import type { WorkflowTask } from '@baton/protocol';
import { kindNameOf } from '../graph.js';
import { decisionKind } from './decision.js';
import { doWhileKind } from './do-while.js';
import { dynamicKind } from './dynamic.js';
import { eventKind } from './event.js';
import { exclusiveJoinKind } from './exclusive-join.js';
import { forkJoinDynamicKind } from './fork-dynamic.js';
import { forkJoinKind } from './fork.js';
import { humanKind } from './human.js';
import { joinKind } from './join.js';
import type { TaskKind } from './kind.js';
import { inlineKind } from './inline.js';
import { jsonJqTransformKind } from './json-jq-transform.js';
import { lambdaKind } from './lambda.js';
import { startWorkflowKind } from './start-workflow.js';
import { subWorkflowKind } from './sub-workflow.js';
import { pullWorkflowMessagesKind } from './pull-workflow-messages.js';
import { noopKind } from './noop.js';
import { setVariableKind } from './set-variable.js';
import { switchKind } from './switch.js';
import { systemCallKinds } from './system-call.js';
import { terminateKind } from './terminate.js';
import { waitKind } from './wait.js';
import { simpleKind, userDefinedKind } from './worker.js';

/**
 * The kinds this server can run. A kind named in protocol's TASK_KINDS but missing here is
 * refused at registration (`task type X is not supported by this server yet`); a `type` that
 * is no known kind at all is a USER_DEFINED worker task and needs a task definition.
 * To add a kind: write `kinds/<kind>.ts` implementing `TaskKind`, list it below, and describe
 * it in protocol's `TASK_KIND_INFO` (docs/adding-a-task-kind.md).
 */
const KINDS: ReadonlyMap<string, TaskKind> = new Map(
  [
    simpleKind,
    userDefinedKind,
    inlineKind,
    lambdaKind,
    jsonJqTransformKind,
    subWorkflowKind,
    startWorkflowKind,
    pullWorkflowMessagesKind,
    // Control flow
    switchKind,
    decisionKind,
    forkJoinKind,
    forkJoinDynamicKind,
    joinKind,
    exclusiveJoinKind,
    doWhileKind,
    setVariableKind,
    terminateKind,
    noopKind,
    dynamicKind,
    waitKind,
    humanKind,
    // Calls the engine makes itself (HTTP, CALL_TOOL, …), queued for the integrations executor.
    ...systemCallKinds,
    eventKind,
  ].map((kind): [string, TaskKind] => [kind.kind, kind]),
);

/** The implementation of a node's kind; undefined when the kind is known but not implemented. */
export function taskKindOf(workflowTask: Pick<WorkflowTask, 'type'>): TaskKind | undefined {
  return KINDS.get(kindNameOf(workflowTask));
}

/** Every kind this server runs (the completeness test walks them). */
export function registeredKinds(): readonly TaskKind[] {
  return [...KINDS.values()];
}

export function isImplementedKind(kind: string): boolean {
  return KINDS.has(kind);
}

export function unsupportedKindMessage(kind: string): string {
  return `task type ${kind} is not supported by this server yet`;
}

export { isWorkerTask, kindNameOf, workerTaskNames } from '../graph.js';
