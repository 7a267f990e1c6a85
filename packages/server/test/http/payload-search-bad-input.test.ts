import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { appSuite } from '../helpers/app-suite.js';
import { storeCases } from '../helpers/stores.js';

/** Malformed input to the payload, search, archive and run-state routes: always a 4xx, never a 5xx. */

const requests: Array<[method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: string]> = [
  ['GET', '/api/tasks/external-storage-location?operation=DELETE'],
  ['GET', '/api/tasks/external-storage-location?payloadType=NOPE'],
  ['GET', '/api/tasks/external-storage-location?operation=READ'],
  ['GET', `/api/tasks/external-storage-location?path=${'a'.repeat(600)}`],
  ['GET', '/api/tasks/external-storage-location?path=%2Fetc%2Fpasswd'],
  ['GET', '/api/tasks/external-storage-location?path=payloads%2F..%2F..%2Fx'],
  ['PUT', '/api/payloads/payloads/x.json', '{}'],
  ['PUT', '/api/payloads/payloads/x.json?op=WRITE&expires=abc&signature=x', '{}'],
  ['PUT', '/api/payloads/payloads/x.json?op=WRITE&expires=99999999999&signature=x', '{}'],
  ['GET', '/api/payloads/payloads/x.json?op=READ&expires=1&signature=%00'],
  ['GET', '/api/payloads/?op=READ&expires=1&signature=x'],
  ['GET', '/api/tasks/search?size=abc'],
  ['GET', '/api/tasks/search?size=-1'],
  ['GET', '/api/tasks/search?start=99999999999'],
  ['GET', `/api/tasks/search?query=${encodeURIComponent('((((')}`],
  ['GET', `/api/tasks/search?query=${encodeURIComponent('status IN ()')}`],
  ['GET', `/api/tasks/search?query=${encodeURIComponent('startTime > 99999999999999999999')}`],
  ['GET', `/api/tasks/search?query=${encodeURIComponent('"\u0000" = 1')}`],
  ['GET', `/api/tasks/search?query=${'x'.repeat(5000)}`],
  ['GET', '/api/tasks/search?sort=updateTime:SIDEWAYS'],
  ['GET', '/api/tasks/search?from=2026-13-45'],
  ['GET', `/api/workflow/search?query=${encodeURIComponent('version > abc')}`],
  ['GET', `/api/workflow/search?query=${encodeURIComponent('status = NOPE')}`],
  ['POST', '/api/workflow/correlated/batch', '[]'],
  ['POST', '/api/workflow/correlated/batch', '{"workflowNames": "a", "correlationIds": []}'],
  [
    'POST',
    '/api/workflow/correlated/batch?includeClosed=maybe',
    '{"workflowNames": [], "correlationIds": []}',
  ],
  ['POST', '/api/workflow/nope/variables', '[1,2]'],
  ['POST', '/api/workflow/nope/variables', 'not json'],
  ['POST', '/api/tasks/nope/DONE/signal/sync', '{}'],
  ['POST', '/api/tasks/nope/COMPLETED/signal/sync?returnStrategy=x', '{}'],
  ['DELETE', '/api/workflow/nope/remove?archiveWorkflow=perhaps'],
  ['DELETE', '/api/workflow/bulk/remove', '{"ids": 1}'],
  ['DELETE', '/api/workflow/bulk/remove', JSON.stringify(Array.from({ length: 1001 }, (_, i) => `id-${i}`))],
  ['POST', '/api/workflow/bulk/delete', '[""]'],
  ['POST', '/api/tasks', '{"taskId": "t", "status": "COMPLETED", "externalOutputPayloadStoragePath": ""}'],
  ['POST', '/api/workflow', '{"name": "x", "externalInputPayloadStoragePath": 5}'],
];

for (const storeCase of storeCases()) {
  describe(`bad input to payload, search, archive and run-state routes: ${storeCase.name}`, () => {
    const t = appSuite(storeCase);
    it('answers every malformed request with a 4xx error body', async () => {
      for (const [method, url, body] of requests) {
        const res = await t.app.inject({
          method,
          url,
          ...(body !== undefined && { payload: body, headers: { 'content-type': 'application/json' } }),
        });
        assert.ok(
          res.statusCode >= 400 && res.statusCode < 500,
          `${method} ${url.slice(0, 80)} → ${res.statusCode} ${res.body.slice(0, 200)}`,
        );
        const parsed = JSON.parse(res.body) as { status: number; message: string; retryable: boolean };
        assert.equal(parsed.status, res.statusCode);
        assert.equal(typeof parsed.message, 'string');
      }
    });
  });
}
