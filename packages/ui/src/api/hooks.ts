import { keepPreviousData, useQuery } from '@tanstack/react-query';

import { enc, getJson, qs } from './client';
import type {
  EventExecution,
  EventHandler,
  Instruction,
  PollData,
  ScheduleExecution,
  QueueSizes,
  SearchResult,
  StoredTaskDef,
  TaskLog,
  TaskRecord,
  TaskSummary,
  Workflow,
  WorkflowDef,
  WorkflowSchedule,
  WorkflowSummary,
} from './types';

/**
 * Server state, read through TanStack Query. Open runs and queues refresh on an interval so the
 * pages follow the engine without a reload; the previous answer stays on screen while the next
 * one loads, so nothing jumps.
 */

export const LIVE_MS = 3000;

export interface RunSearch {
  name?: string;
  status?: string;
  correlationId?: string;
  freeText?: string;
  from?: string;
  to?: string;
  sort?: string;
  start: number;
  size: number;
}

export function useRunSearch(search: RunSearch, live: boolean) {
  return useQuery({
    queryKey: ['runs', search],
    queryFn: () => getJson<SearchResult<WorkflowSummary>>(`/api/workflow/search${qs({ ...search })}`),
    placeholderData: keepPreviousData,
    refetchInterval: live ? LIVE_MS : false,
  });
}

/** `GET /api/tasks/search`'s parameters, as the tasks page sends them. */
export interface TaskSearch {
  taskType?: string;
  status?: string;
  workflowType?: string;
  workerId?: string;
  freeText?: string;
  from?: string;
  to?: string;
  query?: string;
  sort?: string;
  start: number;
  size: number;
}

export function useTaskSearch(search: TaskSearch, live: boolean) {
  return useQuery({
    queryKey: ['task-search', search],
    queryFn: () => getJson<SearchResult<TaskSummary>>(`/api/tasks/search${qs({ ...search })}`),
    placeholderData: keepPreviousData,
    refetchInterval: live ? LIVE_MS : false,
  });
}

function isOpen(run: Workflow | undefined): boolean {
  return run === undefined || run.status === 'RUNNING' || run.status === 'PAUSED';
}

export function useRun(id: string) {
  return useQuery({
    queryKey: ['run', id],
    queryFn: () => getJson<Workflow>(`/api/workflow/${enc(id)}`),
    // An open run keeps changing; an ended one only through retry/restart links.
    refetchInterval: (q) => (isOpen(q.state.data) ? LIVE_MS : LIVE_MS * 5),
  });
}

export function useTask(taskId: string | undefined) {
  return useQuery({
    queryKey: ['task', taskId],
    queryFn: () => getJson<TaskRecord>(`/api/tasks/${enc(taskId ?? '')}`),
    enabled: taskId !== undefined,
    refetchInterval: LIVE_MS,
  });
}

export function useTaskLogs(taskId: string | undefined) {
  return useQuery({
    queryKey: ['task-logs', taskId],
    queryFn: async () => (await getJson<TaskLog[] | undefined>(`/api/tasks/${enc(taskId ?? '')}/log`)) ?? [],
    enabled: taskId !== undefined,
    refetchInterval: LIVE_MS,
  });
}

export function usePollData(taskType: string | undefined) {
  return useQuery({
    queryKey: ['polldata', taskType],
    queryFn: () => getJson<PollData[]>(`/api/tasks/queue/polldata${qs({ taskType })}`),
    enabled: taskType !== undefined,
    refetchInterval: LIVE_MS,
  });
}

export function useAllPollData() {
  return useQuery({
    queryKey: ['polldata-all'],
    queryFn: () => getJson<PollData[]>('/api/tasks/queue/polldata/all'),
    refetchInterval: LIVE_MS,
  });
}

export function useDefinitions() {
  return useQuery({
    queryKey: ['definitions'],
    queryFn: () => getJson<WorkflowDef[]>('/api/metadata/workflow'),
  });
}

export function useDefinition(name: string | undefined, version?: number) {
  return useQuery({
    queryKey: ['definition', name, version],
    queryFn: () => getJson<WorkflowDef>(`/api/metadata/workflow/${enc(name ?? '')}${qs({ version })}`),
    enabled: name !== undefined && name !== '',
  });
}

export function useTaskDefs() {
  return useQuery({
    queryKey: ['taskdefs'],
    queryFn: () => getJson<StoredTaskDef[]>('/api/metadata/taskdefs'),
  });
}

export function useQueueSizes() {
  return useQuery({
    queryKey: ['queues'],
    queryFn: () => getJson<QueueSizes>('/api/tasks/queue/sizes'),
    refetchInterval: LIVE_MS,
    placeholderData: keepPreviousData,
  });
}

export function useSchedules() {
  return useQuery({
    queryKey: ['schedules'],
    queryFn: () => getJson<WorkflowSchedule[]>('/api/schedule'),
    // Next run times move on and slots fire: follow them.
    refetchInterval: LIVE_MS * 2,
    placeholderData: keepPreviousData,
  });
}

export function useScheduleExecutions(name: string | undefined) {
  return useQuery({
    queryKey: ['schedule-executions', name],
    queryFn: () =>
      getJson<SearchResult<ScheduleExecution>>(
        `/api/schedule/${enc(name ?? '')}/executions${qs({ size: 50 })}`,
      ),
    enabled: name !== undefined,
    refetchInterval: LIVE_MS,
  });
}

/** The next slots of a cron expression; undefined key parts keep it idle. */
export function useNextRuns(cronExpression: string, zoneId: string) {
  return useQuery({
    queryKey: ['next-runs', cronExpression, zoneId],
    queryFn: () =>
      getJson<number[]>(`/api/schedule/nextFewSchedules${qs({ cronExpression, zoneId, limit: 5 })}`),
    enabled: cronExpression.trim() !== '',
    retry: false,
    placeholderData: keepPreviousData,
  });
}

export function useEventHandlers() {
  return useQuery({
    queryKey: ['event-handlers'],
    queryFn: () => getJson<EventHandler[]>('/api/event'),
  });
}

export function useEventExecutions(handler: string | undefined) {
  return useQuery({
    queryKey: ['event-executions', handler],
    queryFn: () => getJson<SearchResult<EventExecution>>(`/api/event/executions${qs({ handler, size: 50 })}`),
    enabled: handler !== undefined,
    refetchInterval: LIVE_MS,
  });
}

export function useInstructions() {
  return useQuery({
    queryKey: ['instructions'],
    queryFn: () => getJson<Instruction[]>('/api/metadata/instructions'),
  });
}
