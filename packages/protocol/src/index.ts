export * from './json.js';
export * from './statuses.js';
export * from './task-kinds.js';
export * from './definitions.js';
export * from './records.js';
export * from './errors.js';
export * from './messages.js';
export * from './durations.js';
