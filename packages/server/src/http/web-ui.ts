import { existsSync, statSync } from 'node:fs';
import path from 'node:path';

import fastifyStatic from '@fastify/static';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

import type { AppDeps } from './app-deps.js';

/**
 * Serves the built web UI (packages/ui) at `/`. Files that exist are sent as they are (the hashed
 * ones under assets/ cached for good); any other GET outside the API answers index.html so the
 * browser's own routes (/runs/…, /definitions/…) survive a reload. The API keeps its JSON 404.
 * When the UI was not built the server still starts: `/` then says how to build it.
 */

/** Paths that belong to the server, never to the UI's client-side routes. */
const SERVER_PREFIXES = ['/api/', '/api', '/health', '/metrics'];

function isServerPath(url: string): boolean {
  return SERVER_PREFIXES.some((p) => url === p || url.startsWith(p.endsWith('/') ? p : `${p}/`));
}

/** The file under `root` that `urlPath` names, or undefined when there is none (or it escapes root). */
function fileUnder(root: string, urlPath: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return undefined;
  }
  const rel = path.normalize(decoded).replace(/^([/\\])+/, '');
  if (rel === '' || rel.startsWith('..') || rel.includes('\0')) return undefined;
  const full = path.join(root, rel);
  if (!full.startsWith(root + path.sep)) return undefined;
  try {
    return statSync(full).isFile() ? rel : undefined;
  } catch {
    return undefined;
  }
}

/** The web UI's route module: the built UI at `/` (or a page saying how to build it). */
export function webUiRoutes(app: FastifyInstance, deps: Pick<AppDeps, 'options' | 'logger'>): Promise<void> {
  return serveWebUi(app, deps.options.uiDir, deps.logger);
}

export async function serveWebUi(
  app: FastifyInstance,
  uiDir: string,
  logger: FastifyBaseLogger | false,
): Promise<void> {
  const root = path.resolve(uiDir);
  if (!existsSync(path.join(root, 'index.html'))) {
    if (logger) {
      logger.warn(
        { uiDir: root },
        'the web UI is not built (no index.html): serving the API only; run `npm run build` to build it',
      );
    }
    app.get('/', { schema: { hide: true } }, (_req, reply) =>
      reply
        .type('text/plain; charset=utf-8')
        .send(
          `Baton is running, but its web UI is not built (nothing at ${root}).\n` +
            'Run `npm run build` (or `npm start`, which builds it) and reload.\n' +
            'The API is at /api; its documentation at /api/docs.\n',
        ),
    );
    return;
  }
  // serve: false — only reply.sendFile; the one route below decides file, fallback or API 404.
  await app.register(fastifyStatic, { root, serve: false });

  const handler = (req: FastifyRequest, reply: FastifyReply): FastifyReply | Promise<FastifyReply> => {
    const urlPath = req.url.split('?')[0] ?? '/';
    if (isServerPath(urlPath)) {
      reply.callNotFound();
      return reply;
    }
    const file = fileUnder(root, urlPath);
    if (file !== undefined) {
      // Vite names built assets by content hash: they never change under the same name.
      const immutable = file.startsWith(`assets${path.sep}`);
      return reply.sendFile(file, { cacheControl: true, immutable, maxAge: immutable ? '365d' : 0 });
    }
    // A client-side route: the app shell, never cached so a new build is picked up at once.
    return reply.header('cache-control', 'no-cache').sendFile('index.html', { cacheControl: false });
  };
  app.get('/', { schema: { hide: true } }, handler);
  app.get('/*', { schema: { hide: true } }, handler);
}
