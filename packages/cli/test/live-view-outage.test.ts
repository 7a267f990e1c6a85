import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { BatonApiError, type BatonClient, type Workflow } from '@baton/sdk';

import { watchRun } from '../src/live-view.js';

/** A client whose reads of the run answer `failures` in turn, then the run as it ended. */
function clientAnswering(failures: Error[]): { client: BatonClient; reads: () => number } {
  let reads = 0;
  const ended = {
    workflowId: 'run-1',
    workflowName: 'nap',
    status: 'COMPLETED',
    tasks: [],
    createTime: 1,
    startTime: 1,
    endTime: 2,
  } as unknown as Workflow;
  const client = {
    getWorkflow: () => {
      const failure = failures[reads++];
      return failure === undefined ? Promise.resolve(ended) : Promise.reject(failure);
    },
  } as unknown as BatonClient;
  return { client, reads: () => reads };
}

const out = { write: () => true, columns: 80, rows: 24 } as unknown as NodeJS.WriteStream;
/** An error answer of the server, as the SDK throws it. */
const answered = (status: number, errorCode: string, retryable: boolean, message = errorCode) =>
  BatonApiError.from('GET', 'http://127.0.0.1:1/api/workflow/run-1', status, {
    status,
    errorCode,
    message,
    retryable,
  });
const starting = () =>
  answered(
    503,
    'DATABASE_UNAVAILABLE',
    true,
    'The database is unavailable; try again later (the node is starting)',
  );
const watching = (failure: Error) =>
  watchRun(clientAnswering([failure]).client, 'run-1', { live: false, colour: false, out });

describe('a watch rides out a server that answers it cannot serve yet', () => {
  it('reads again after a retryable 503 (a node starting, its database away) until the run is there', async () => {
    const { client, reads } = clientAnswering([starting(), starting()]);
    const run = await watchRun(client, 'run-1', { live: false, colour: false, out });
    assert.equal(run.status, 'COMPLETED');
    assert.equal(reads(), 3);
  });

  it('gives up at once on an answer that will not change (404), or a 503 the server says not to repeat', async () => {
    await assert.rejects(watching(answered(404, 'RUN_NOT_FOUND', false)), { status: 404 });
    await assert.rejects(watching(answered(503, 'SOMETHING_FINAL', false)), { status: 503 });
  });
});
