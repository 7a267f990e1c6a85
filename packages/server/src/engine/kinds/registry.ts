import type { WorkflowTask } from '@baton/protocol';
import { kindNameOf } from '../graph.js';
import type { TaskKind } from './kind.js';
import { inlineKind } from './inline.js';
import { jsonJqTransformKind } from './json-jq-transform.js';
import { lambdaKind } from './lambda.js';
import { startWorkflowKind } from './start-workflow.js';
import { subWorkflowKind } from './sub-workflow.js';
import { pullWorkflowMessagesKind } from './pull-workflow-messages.js';
import { simpleKind, userDefinedKind } from './worker.js';

/**
 * The kinds this server can run. A kind named in protocol's TASK_KINDS but missing here is
 * refused at registration (`task type X is not supported by this server yet`); a `type` that
 * is no known kind at all is a USER_DEFINED worker task and needs a task definition.
 * To add a kind: write `kinds/<kind>.ts` implementing `TaskKind` and list it below.
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
  ].map((kind): [string, TaskKind] => [kind.kind, kind]),
);

/** The implementation of a node's kind; undefined when the kind is known but not implemented. */
export function taskKindOf(workflowTask: Pick<WorkflowTask, 'type'>): TaskKind | undefined {
  return KINDS.get(kindNameOf(workflowTask));
}

export function isImplementedKind(kind: string): boolean {
  return KINDS.has(kind);
}

export function unsupportedKindMessage(kind: string): string {
  return `task type ${kind} is not supported by this server yet`;
}

export { isWorkerTask, kindNameOf, workerTaskNames } from '../graph.js';
