import type { EventHandler, ValidationError } from '@baton/protocol';

import type { ScriptRunner } from '../engine/index.js';
import { parseAddress } from './broker.js';

export const EVENT_SOURCES = ['baton', 'amqp', 'nats'] as const;

/** Where lifecycle events of definitions that opt in without naming a sink go (`baton:` handlers can react). */
export const DEFAULT_LIFECYCLE_SINK = 'baton:workflow_status';

/** Why an event name or sink is not usable, or undefined. */
export function addressProblem(address: string): string | undefined {
  const parsed = parseAddress(address);
  if (!parsed)
    return `'${address}' is not <source>:<queue> (e.g. amqp:orders, nats:orders.created, baton:orders)`;
  if (!(EVENT_SOURCES as readonly string[]).includes(parsed.scheme))
    return `source '${parsed.scheme}' is not supported: use ${EVENT_SOURCES.map((s) => `${s}:`).join(', ')}`;
  if (parsed.scheme === 'nats' && /[\s]/.test(parsed.destination)) return 'a NATS subject has no spaces';
  return undefined;
}

/** Conductor's checks and messages, plus Baton's: known source, actions with their parameters, a condition that parses. */
export function checkEventHandler(handler: EventHandler, scripts: ScriptRunner): ValidationError[] {
  const errors: ValidationError[] = [];
  const add = (path: string, message: string, invalidValue?: unknown): void => {
    errors.push({ path: `body.${path}`, message, ...(invalidValue !== undefined && { invalidValue }) });
  };
  if (typeof handler.name !== 'string' || handler.name.trim() === '')
    add('name', 'Missing event handler name');
  if (typeof handler.event !== 'string' || handler.event.trim() === '')
    add('event', 'Missing event location');
  else {
    const problem = addressProblem(handler.event);
    if (problem) add('event', problem, handler.event);
  }
  if (!Array.isArray(handler.actions) || handler.actions.length === 0)
    add('actions', 'No actions specified. Please specify at-least one action');
  else {
    handler.actions.forEach((action, i) => {
      const params = action[action.action];
      if (typeof params !== 'object' || params === null || Array.isArray(params)) {
        add(`actions[${i}].${action.action}`, `action ${action.action} needs its parameters object`);
        return;
      }
      const str = (field: string): boolean => typeof params[field] === 'string' && params[field] !== '';
      if (action.action === 'start_workflow' && !str('name'))
        add(`actions[${i}].start_workflow.name`, 'the workflow to start is required');
      if (
        (action.action === 'complete_task' || action.action === 'fail_task') &&
        !str('taskId') &&
        !(str('workflowId') && str('taskRefName'))
      )
        add(`actions[${i}].${action.action}`, 'taskId, or workflowId and taskRefName, are required');
      if (
        (action.action === 'terminate_workflow' || action.action === 'update_workflow_variables') &&
        !str('workflowId')
      )
        add(`actions[${i}].${action.action}.workflowId`, 'workflowId is required');
      if (action.action === 'update_workflow_variables') {
        const v = params.variables;
        if (typeof v !== 'object' || v === null || Array.isArray(v))
          add(`actions[${i}].update_workflow_variables.variables`, 'variables must be an object');
      }
    });
  }
  if (
    typeof handler.condition === 'string' &&
    handler.condition.trim() !== '' &&
    handler.evaluatorType !== 'value-param'
  ) {
    const problem = scripts.checkJavascript(handler.condition);
    if (problem) add('condition', `condition does not parse: ${problem}`, handler.condition);
  }
  return errors;
}
