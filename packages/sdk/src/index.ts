export {
  BatonClient,
  type BatonClientOptions,
  type RunSearch,
  type StartOptions,
  type PollRequest,
} from './client.js';
export type { Credentials } from './auth.js';
export { BatonApiError, BatonConnectionError, BatonNotApiError, TerminalError } from './errors.js';
export {
  defineWorker,
  inProgress,
  type InProgress,
  type TaskContext,
  type Worker,
  type WorkerDefinition,
} from './worker.js';
export {
  WorkerPool,
  runWorkers,
  type WorkerPoolOptions,
  type WorkerPoolState,
  type StopOptions,
} from './worker-pool.js';
export { POLL_TIMEOUT_MS, type RunnerEvent } from './task-runner.js';
export { IdleBackoff } from './backoff.js';
export * as builders from './definitions.js';
export type { paths as ApiPaths } from './generated/openapi.js';
export type * from '@baton/protocol';
