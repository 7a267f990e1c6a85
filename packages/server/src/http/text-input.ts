import type { FastifyInstance } from 'fastify';

import { textProblem } from '../bounds/json-shape.js';
import { fail } from '../errors.js';

/**
 * Text no store can hold (NUL, unpaired surrogates) is refused where it enters: raw text bodies
 * (task logs arrive as text, Conductor's habit) and every path and query value of every route.
 * JSON bodies get the same check in `json-body.ts`.
 */
export function installTextInput(app: FastifyInstance): void {
  app.addContentTypeParser('text/plain', { parseAs: 'string' }, (_req, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    const problem = textProblem(text);
    if (problem) {
      done(
        fail('BODY_TEXT_INVALID', { path: 'body', problem }, [{ path: 'body', message: problem }]),
        undefined,
      );
      return;
    }
    done(null, text);
  });

  app.addHook('preValidation', (req, _reply, done) => {
    for (const [part, values] of [
      ['params', req.params],
      ['querystring', req.query],
    ] as const) {
      if (values === null || typeof values !== 'object') continue;
      for (const [key, raw] of Object.entries(values as Record<string, unknown>)) {
        for (const value of Array.isArray(raw) ? (raw as unknown[]) : [raw]) {
          const problem = typeof value === 'string' ? textProblem(value) : undefined;
          if (problem) {
            const path = `${part}.${key}`;
            done(fail('BODY_TEXT_INVALID', { path, problem }, [{ path, message: problem }]));
            return;
          }
        }
      }
    }
    done();
  });
}
