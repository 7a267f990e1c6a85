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
const starting = () =>
  BatonApiError.from('GET', 'http://127.0.0.1:1/api/workflow/run-1', 503, {
    status: 503,
    code: 'NOT_READY',
    errorCode: 'DATABASE_UNAVAILABLE',
    message: 'The database is unavailable; try again later (the node is starting)',
    retryable: true,
  });

describe('a watch rides out a server that answers it cannot serve yet', () => {
  it('reads again after a retryable 503 (a node starting, its database away) until the run is there', async () => {
    const { client, reads } = clientAnswering([starting(), starting()]);
    const run = await watchRun(client, 'run-1', { live: false, colour: false, out });
    assert.equal(run.status, 'COMPLETED');
    assert.equal(reads(), 3);
  });

  it('gives up at once on an answer that will not change (404), or a 503 the server says not to repeat', async () => {
    const missing = BatonApiError.from('GET', 'http://127.0.0.1:1/api/workflow/run-1', 404, {
      status: 404,
      code: 'NOT_FOUND',
      errorCode: 'RUN_NOT_FOUND',
      message: 'no run run-1',
      retryable: false,
    });
    await assert.rejects(
      watchRun(clientAnswering([missing]).client, 'run-1', { live: false, colour: false, out }),
      {
        status: 404,
      },
    );
    const final = BatonApiError.from('GET', 'http://127.0.0.1:1/api/workflow/run-1', 503, {
      status: 503,
      errorCode: 'SOMETHING_FINAL',
      message: 'no',
      retryable: false,
    });
    await assert.rejects(
      watchRun(clientAnswering([final]).client, 'run-1', { live: false, colour: false, out }),
      {
        status: 503,
      },
    );
  });
});
