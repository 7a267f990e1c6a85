import type { ValidationError, WorkflowTask } from '@baton/protocol';
import type { TaskKind } from './kind.js';
import { fieldProblem, isPlainObject, javaMapString, requiredField, resolvedInput } from './system-task.js';
import { scheduleWorkerTask } from './worker.js';
import { copyWith } from '../../copy-with.js';

/**
 * DYNAMIC (Conductor's `DynamicTaskMapper`): input key `dynamicTaskNameParam` holds the name of
 * the worker task to run; the task is then made like a SIMPLE task of that name (its record
 * keeps a node with that name, so retries and its task definition follow the chosen name).
 */
export const dynamicKind: TaskKind = {
  kind: 'DYNAMIC',
  retryable: true,
  waiting: 'queued',
  schedule(sctx, node, request) {
    if (request.retryOf) return scheduleWorkerTask(sctx, request.retryOf.workflowTask, request);
    const param = node.dynamicTaskNameParam ?? '';
    const input = resolvedInput(sctx, node, '');
    const name = input[param];
    if (typeof name !== 'string' || name === '') {
      return {
        ok: false,
        reason: `Cannot map a dynamic task based on the parameter and input. Parameter= ${param}, input= ${javaMapString(input)}`,
      };
    }
    const resolved: WorkflowTask = copyWith(node, { name, type: 'SIMPLE' });
    return scheduleWorkerTask(sctx, resolved, request);
  },
  check(node, path) {
    const param: unknown = node.dynamicTaskNameParam;
    if (typeof param !== 'string' || param === '') return [requiredField(path, 'dynamicTaskNameParam', node)];
    const params = isPlainObject(node.inputParameters) ? node.inputParameters : {};
    if (!Object.hasOwn(params, param))
      return [
        fieldProblem(
          path,
          'dynamicTaskNameParam',
          node,
          `dynamicTaskNameParam '${param}' names no key of inputParameters`,
          param,
        ),
      ];
    return [] as ValidationError[];
  },
};
