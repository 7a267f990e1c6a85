import type { FastifyInstance } from 'fastify';

import { jsonShapeProblem } from '../bounds/json-shape.js';
import { MAX_JSON_DEPTH } from '../bounds/ranges.js';
import { fail } from '../errors.js';

/**
 * One JSON body parser for every route, present and future: Fastify's own parser (which refuses
 * `__proto__` and `constructor.prototype` keys), then the depth and size policy of free JSON,
 * checked without recursion before validation or any handler walks the value. A body past the
 * policy is a 400 naming where it was crossed and the limit.
 */
export function installJsonBodies(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    void parse(req, typeof body === 'string' ? body : body.toString('utf8'), (err, value) => {
      if (err) {
        done(err, undefined);
        return;
      }
      const problem = jsonShapeProblem(value, 'body');
      if (problem) {
        done(
          fail('BODY_TOO_DEEP', { path: problem.path, problem: problem.message, maxDepth: MAX_JSON_DEPTH }, [
            { path: problem.path, message: problem.message },
          ]),
          undefined,
        );
        return;
      }
      done(null, value);
    });
  });
}
