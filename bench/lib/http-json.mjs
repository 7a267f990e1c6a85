// A lean JSON client over keep-alive sockets: the benchmark's workers share two cores with the
// server and the database, so the client should cost as little CPU as a production worker's.
import http from 'node:http';

export function jsonClient(baseUrl, { sockets = 64 } = {}) {
  const base = new URL(baseUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: sockets });
  function request(method, path, body) {
    return new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const req = http.request(
        {
          agent,
          host: base.hostname,
          port: base.port,
          method,
          path,
          headers:
            payload === undefined
              ? {}
              : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
        },
        (res) => {
          const chunks = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            if (res.statusCode >= 400) {
              reject(new Error(`${method} ${path} answered ${res.statusCode}: ${text.slice(0, 500)}`));
              return;
            }
            const type = res.headers['content-type'] ?? '';
            resolve({
              status: res.statusCode,
              body: type.includes('json') && text ? JSON.parse(text) : text,
            });
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      if (payload !== undefined) req.write(payload);
      req.end();
    });
  }
  return {
    get: (path) => request('GET', path),
    post: (path, body) => request('POST', path, body),
    close: () => agent.destroy(),
  };
}
