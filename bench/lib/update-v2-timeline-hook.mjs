// Loaded into a Baton server with `node --import` by bench/update-v2-latency.mjs --timeline: where
// the server's time on each `POST /api/tasks/update-v2` goes, with one request at a time (light
// load): before its first PostgreSQL message, waiting for each message's answer (the first, the
// second, the rest), between them, and after the last until the answer is written. Waiting
// includes node-postgres parsing the rows, which happens before an answer resolves. On SIGUSR2 it
// writes the sums so far to `$BATON_TIMELINE_FILE.<n>` (n = 1, 2, …) for the caller to take the
// difference over the steps it measures. It also times every socket write the server makes (the
// call that hands an HTTP answer or a PostgreSQL message to the kernel): on loopback the kernel
// may switch to the reader inside that call, so its time includes the peer's run, which is why a
// CPU profile shows `writev` and `writeBuffer` larger than the writes cost the server.
import http from 'node:http';
import net from 'node:net';
import { renameSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

import pg from 'pg';

const file = process.env.BATON_TIMELINE_FILE;
const sums = {
  requests: 0,
  total: 0,
  beforeFirst: 0,
  first: 0,
  second: 0,
  rest: 0,
  between: 0,
  afterLast: 0,
  httpWrites: 0,
  httpWriteMs: 0,
  pgWrites: 0,
  pgWriteMs: 0,
};
/** The update-v2 request being served: when it began, its messages so far, when the last was answered. */
let current;

const query = pg.Client.prototype.query;
pg.Client.prototype.query = function timedQuery(...args) {
  const request = current;
  // A query object of its own (a cursor, a stream) is not timed.
  const own = typeof args[0]?.submit === 'function';
  if (request === undefined || own) return query.apply(this, args);
  const sent = performance.now();
  const n = request.messages++;
  if (n === 0) sums.beforeFirst += sent - request.start;
  else if (request.answeredAt !== undefined) sums.between += sent - request.answeredAt;
  const done = () => {
    const at = performance.now();
    sums[n === 0 ? 'first' : n === 1 ? 'second' : 'rest'] += at - sent;
    request.answeredAt = at;
  };
  // The callback form (the store's connections keep their answer deadline with it,
  // store-postgres/answer-deadline.ts) and the promise form.
  const last = args.length - 1;
  if (typeof args[last] === 'function') {
    const callback = args[last];
    args[last] = function timedCallback(...answer) {
      done();
      return callback.apply(this, answer);
    };
    return query.apply(this, args);
  }
  const answer = query.apply(this, args);
  if (typeof answer?.then === 'function') answer.then(done, done);
  return answer;
};

// Every socket write: an accepted socket's (an HTTP answer) or the server's own (a PostgreSQL message).
const writeGeneric = net.Socket.prototype._writeGeneric;
net.Socket.prototype._writeGeneric = function timedWrite(...args) {
  const start = performance.now();
  const out = writeGeneric.apply(this, args);
  const ms = performance.now() - start;
  if (this.server) {
    sums.httpWrites++;
    sums.httpWriteMs += ms;
  } else {
    sums.pgWrites++;
    sums.pgWriteMs += ms;
  }
  return out;
};

const emit = http.Server.prototype.emit;
http.Server.prototype.emit = function timedEmit(event, req, res) {
  if (event === 'request' && req.url?.startsWith('/api/tasks/update-v2')) {
    const request = { start: performance.now(), messages: 0, answeredAt: undefined };
    current = request;
    res.once('finish', () => {
      const end = performance.now();
      sums.requests++;
      sums.total += end - request.start;
      if (request.answeredAt !== undefined) sums.afterLast += end - request.answeredAt;
      if (current === request) current = undefined;
    });
  }
  return emit.call(this, event, req, res);
};

let dumps = 0;
process.on('SIGUSR2', () => {
  if (!file) return;
  dumps++;
  const path = `${file}.${dumps}`;
  writeFileSync(`${path}.tmp`, JSON.stringify(sums));
  renameSync(`${path}.tmp`, path);
});
