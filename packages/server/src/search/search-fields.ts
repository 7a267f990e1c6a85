import { TASK_STATUSES, WORKFLOW_STATUSES } from '@baton/protocol';

import type { RunSearchField, TaskSearchField } from '../store/store.js';
import type { SearchFields } from './query-filter.js';

/** The fields Conductor's run search query names (`workflowType IN (…) AND status IN (…)`). */
export const RUN_FIELDS: SearchFields<RunSearchField> = {
  fields: {
    workflowId: { type: 'text' },
    workflowType: { type: 'text' },
    version: { type: 'integer' },
    status: { type: 'enum', values: WORKFLOW_STATUSES },
    correlationId: { type: 'text' },
    parentWorkflowId: { type: 'text' },
    startTime: { type: 'time' },
    updateTime: { type: 'time' },
    endTime: { type: 'time' },
  },
  aliases: {
    workflowName: 'workflowType',
    name: 'workflowType',
    createTime: 'startTime',
    workflowVersion: 'version',
  },
};

/** The fields Conductor's task search query names (`taskType IN (…) AND status IN (…)`). */
export const TASK_FIELDS: SearchFields<TaskSearchField> = {
  fields: {
    taskId: { type: 'text' },
    taskType: { type: 'text' },
    status: { type: 'enum', values: TASK_STATUSES },
    workflowId: { type: 'text' },
    workflowType: { type: 'text' },
    referenceTaskName: { type: 'text' },
    workerId: { type: 'text' },
    startTime: { type: 'time' },
    scheduledTime: { type: 'time' },
    updateTime: { type: 'time' },
    endTime: { type: 'time' },
  },
  aliases: {
    taskDefName: 'taskType',
    workflowName: 'workflowType',
    workflowInstanceId: 'workflowId',
    taskRefName: 'referenceTaskName',
    taskReferenceName: 'referenceTaskName',
  },
};
