import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { BatonClient } from '../src/index.js';

/** The URLs a client asks for, answered with an empty search result. */
function recording(): { urls: string[]; fetch: typeof fetch } {
  const urls: string[] = [];
  const fake = (input: string | URL | Request): Promise<Response> => {
    urls.push(input instanceof Request ? input.url : String(input));
    return Promise.resolve(
      new Response(JSON.stringify({ totalHits: 0, results: [] }), {
        status: 200,
        headers: { 'content-type': 'application/json' },
      }),
    );
  };
  return { urls, fetch: fake };
}

describe('the base URL a client is given', () => {
  for (const baseUrl of ['http://h:8080', 'http://h:8080/', 'http://h:8080/api', 'http://h:8080/api/']) {
    it(`${baseUrl}: requests go to /api/… once (Conductor clients are given the /api root)`, async () => {
      const { urls, fetch } = recording();
      const client = new BatonClient({ baseUrl, fetch });
      await client.searchWorkflows({ size: 1 });
      assert.equal(client.baseUrl, 'http://h:8080');
      assert.match(urls[0] ?? '', /^http:\/\/h:8080\/api\/workflow\/search/);
    });
  }
});
