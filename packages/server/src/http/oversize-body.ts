import type { FastifyInstance } from 'fastify';

/** Most bytes of a refused body read and discarded before the connection is closed instead. */
export const DRAIN_LIMIT_BYTES = 256 * 1024 * 1024;

/**
 * A body over the limit is refused with a 413 while the client may still be sending it. Fastify
 * answers it with `Connection: close`, and closing the connection while the client still writes
 * makes most HTTP clients (undici's fetch among them) report a network error (EPIPE, reset)
 * instead of the answer. So the 413 keeps the connection, and the rest of the body is read and
 * thrown away once the answer is written, up to DRAIN_LIMIT_BYTES; past that the connection is
 * closed (the answer was flushed long before).
 */
export function installOversizeBodyDrain(app: FastifyInstance): void {
  app.addHook('onSend', (_req, reply, payload, done) => {
    if (reply.statusCode === 413) reply.removeHeader('connection');
    done(null, payload);
  });
  app.addHook('onResponse', (req, reply, done) => {
    if (reply.statusCode !== 413) {
      done();
      return;
    }
    const incoming = req.raw;
    if (!incoming.complete && !incoming.destroyed) {
      let drained = 0;
      incoming.on('data', (chunk: Buffer) => {
        drained += chunk.length;
        if (drained > DRAIN_LIMIT_BYTES) incoming.socket.destroy();
      });
      incoming.on('error', () => {});
      incoming.resume();
    }
    done();
  });
}
