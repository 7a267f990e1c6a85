import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

/**
 * A test OTLP/HTTP receiver: takes `POST /v1/traces` with an ExportTraceServiceRequest in
 * protobuf (what `@opentelemetry/exporter-trace-otlp-proto` sends, and collectors take) and
 * keeps every span, decoded from the wire format of opentelemetry-proto's trace.proto.
 */

export type AttributeValue = string | number | boolean | AttributeValue[] | undefined;

export interface ReceivedSpan {
  service: string;
  scope: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  startMs: number;
  endMs: number;
  attributes: Record<string, AttributeValue>;
  events: Array<{ name: string; timeMs: number; attributes: Record<string, AttributeValue> }>;
  links: Array<{ traceId: string; spanId: string }>;
  status: { code: number; message: string };
}

/** One protobuf field: its number, wire type and value (a varint/fixed as bigint, bytes as a Buffer). */
interface Field {
  no: number;
  type: number;
  value: bigint | Buffer;
}

function varint(buf: Buffer, at: number): [bigint, number] {
  let result = 0n;
  let shift = 0n;
  for (;;) {
    const byte = buf[at++];
    if (byte === undefined) throw new Error('truncated varint');
    result |= BigInt(byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) return [result, at];
    shift += 7n;
  }
}

function fields(buf: Buffer): Field[] {
  const out: Field[] = [];
  let at = 0;
  while (at < buf.length) {
    const [key, next] = varint(buf, at);
    at = next;
    const no = Number(key >> 3n);
    const type = Number(key & 7n);
    if (type === 0) {
      const [v, n] = varint(buf, at);
      out.push({ no, type, value: v });
      at = n;
    } else if (type === 1) {
      out.push({ no, type, value: buf.readBigUInt64LE(at) });
      at += 8;
    } else if (type === 2) {
      const [len, n] = varint(buf, at);
      out.push({ no, type, value: buf.subarray(n, n + Number(len)) });
      at = n + Number(len);
    } else if (type === 5) {
      out.push({ no, type, value: BigInt(buf.readUInt32LE(at)) });
      at += 4;
    } else throw new Error(`unsupported wire type ${type}`);
  }
  return out;
}

const bytesOf = (f: Field): Buffer => (Buffer.isBuffer(f.value) ? f.value : Buffer.alloc(0));
const textOf = (f: Field): string => bytesOf(f).toString('utf8');
const numberOf = (f: Field): bigint => (typeof f.value === 'bigint' ? f.value : 0n);
const nanosToMs = (n: bigint): number => Number(n / 1_000_000n);

function anyValue(buf: Buffer): AttributeValue {
  for (const f of fields(buf)) {
    if (f.no === 1) return textOf(f);
    if (f.no === 2) return numberOf(f) !== 0n;
    if (f.no === 3) return Number(BigInt.asIntN(64, numberOf(f)));
    if (f.no === 4) {
      const b = Buffer.alloc(8);
      b.writeBigUInt64LE(numberOf(f));
      return b.readDoubleLE(0);
    }
    if (f.no === 5)
      return fields(bytesOf(f))
        .filter((v) => v.no === 1)
        .map((v) => anyValue(bytesOf(v)));
  }
  return undefined;
}

function attributes(list: Field[]): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const kv of list) {
    let key = '';
    let value: AttributeValue;
    for (const f of fields(bytesOf(kv))) {
      if (f.no === 1) key = textOf(f);
      if (f.no === 2) value = anyValue(bytesOf(f));
    }
    out[key] = value;
  }
  return out;
}

function span(buf: Buffer, service: string, scope: string): ReceivedSpan {
  const all = fields(buf);
  const one = (no: number) => all.find((f) => f.no === no);
  const hex = (no: number) => {
    const f = one(no);
    return f ? bytesOf(f).toString('hex') : '';
  };
  const events = all
    .filter((f) => f.no === 11)
    .map((e) => {
      const ef = fields(bytesOf(e));
      const time = ef.find((f) => f.no === 1);
      const name = ef.find((f) => f.no === 2);
      return {
        name: name ? textOf(name) : '',
        timeMs: time ? nanosToMs(numberOf(time)) : 0,
        attributes: attributes(ef.filter((f) => f.no === 3)),
      };
    });
  const links = all
    .filter((f) => f.no === 13)
    .map((l) => {
      const lf = fields(bytesOf(l));
      const id = (no: number) => {
        const f = lf.find((x) => x.no === no);
        return f ? bytesOf(f).toString('hex') : '';
      };
      return { traceId: id(1), spanId: id(2) };
    });
  const statusField = one(15);
  const status = { code: 0, message: '' };
  if (statusField) {
    for (const f of fields(bytesOf(statusField))) {
      if (f.no === 2) status.message = textOf(f);
      if (f.no === 3) status.code = Number(numberOf(f));
    }
  }
  const name = one(5);
  const kind = one(6);
  const start = one(7);
  const end = one(8);
  return {
    service,
    scope,
    traceId: hex(1),
    spanId: hex(2),
    parentSpanId: hex(4),
    name: name ? textOf(name) : '',
    kind: kind ? Number(numberOf(kind)) : 0,
    startMs: start ? nanosToMs(numberOf(start)) : 0,
    endMs: end ? nanosToMs(numberOf(end)) : 0,
    attributes: attributes(all.filter((f) => f.no === 9)),
    events,
    links,
    status,
  };
}

/** Decodes an ExportTraceServiceRequest. */
export function decodeTraces(body: Buffer): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const rs of fields(body).filter((f) => f.no === 1)) {
    const rsFields = fields(bytesOf(rs));
    let service = '';
    const resource = rsFields.find((f) => f.no === 1);
    if (resource) {
      const attrs = attributes(fields(bytesOf(resource)).filter((f) => f.no === 1));
      service = String(attrs['service.name'] ?? '');
    }
    for (const ss of rsFields.filter((f) => f.no === 2)) {
      const ssFields = fields(bytesOf(ss));
      const scopeField = ssFields.find((f) => f.no === 1);
      const scopeName = scopeField ? fields(bytesOf(scopeField)).find((f) => f.no === 1) : undefined;
      const scope = scopeName ? textOf(scopeName) : '';
      for (const s of ssFields.filter((f) => f.no === 2)) out.push(span(bytesOf(s), service, scope));
    }
  }
  return out;
}

export interface OtlpReceiver {
  /** The base URL (OTEL_EXPORTER_OTLP_ENDPOINT). */
  readonly url: string;
  readonly spans: ReceivedSpan[];
  /** Export requests received (any content). */
  readonly requests: number;
  /** Waits until `predicate` holds over the spans received, or fails after `timeoutMs`. */
  waitFor(predicate: (spans: readonly ReceivedSpan[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  let requests = 0;
  const waiters = new Set<() => void>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests++;
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      try {
        let body = Buffer.concat(chunks);
        if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
        spans.push(...decodeTraces(body));
        res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      } catch {
        res.writeHead(400).end();
      }
      for (const wake of waiters) wake();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    get requests() {
      return requests;
    },
    async waitFor(predicate, timeoutMs = 15_000) {
      if (predicate(spans)) return;
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(`spans not received in ${timeoutMs} ms; got ${spans.map((s) => s.name).join(', ')}`),
          );
        }, timeoutMs);
        const check = () => {
          if (!predicate(spans)) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
