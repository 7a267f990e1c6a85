import { constants, type Deflate, type Inflate } from 'node:zlib';

/**
 * One zlib stream kept for many small synchronous calls, where `deflateSync` and `inflateSync`
 * build a stream for each: a Transform stream with its state, a 16 KB output buffer, zlib's own
 * state, and the preset dictionary hashed in anew. For a task record of a few hundred bytes that
 * set-up is most of the call (packing the bench's record in a loop: 22.5 µs with `deflateSync`,
 * 11.3 µs here; unpacking it 13.8 µs against 3.8), and the buffers it drops are garbage on every
 * write.
 *
 * Node offers no public way to reuse a synchronous stream (the sync calls close theirs), so this
 * drives the stream's native handle the way Node's own `processChunkSync` does: `writeSync` with
 * `Z_FINISH` until the output fits, then `reset()`, which in Node keeps the stream's dictionary.
 * Those are a stream's internals, so nothing is taken on trust: the first call of each engine
 * checks its answer against the public call's, and anything unexpected (a Node whose stream
 * looks different, a check that differs, an error) answers through the public call instead. A
 * stream that met an error is dropped (zlib cannot recover from one) and the public call answers,
 * so a damaged input fails exactly as it would there.
 */
export class ReusedZlib {
  private engine: Engine | undefined;
  /** Off for good once the internals were not as expected, or a first answer differed. */
  private usable = true;
  /** Set once the first answer matched the public call's. */
  private checked = false;
  private readonly scratch = Buffer.allocUnsafeSlow(SCRATCH_BYTES);

  /**
   * `make` builds the stream (`new Deflate(options)` or `new Inflate(options)`); `fallback` is the
   * public call with the same options (`deflateSync`, `inflateSync`), which answers whenever the
   * kept stream cannot.
   */
  constructor(
    private readonly make: () => Deflate | Inflate,
    private readonly fallback: (input: Uint8Array) => Buffer,
  ) {}

  /**
   * `input` run through the stream to its end, as `fallback(input)` answers it but in a buffer of
   * its own (never a slice of Node's shared pool, which a kept buffer would hold whole) that begins
   * with the byte `prefix` when one is given.
   */
  toBuffer(input: Uint8Array, prefix?: number): Buffer {
    const head = prefix === undefined ? 0 : 1;
    const own = (bytes: Uint8Array): Buffer => {
      const out = Buffer.allocUnsafeSlow(head + bytes.length);
      if (prefix !== undefined) out[0] = prefix;
      out.set(bytes, head);
      return out;
    };
    const fast = this.usable ? this.fast(input) : undefined;
    if (fast === undefined) return own(this.fallback(input));
    const out = own(typeof fast === 'number' ? this.scratch.subarray(0, fast) : Buffer.concat(fast));
    return this.checkedOnce(input, out.subarray(head)) ? out : this.toBuffer(input, prefix);
  }

  /** `input` run through the stream to its end, as UTF-8 text (for an inflate stream). */
  toText(input: Uint8Array): string {
    const fast = this.usable ? this.fast(input) : undefined;
    if (fast === undefined) return this.fallback(input).toString('utf8');
    const out = typeof fast === 'number' ? this.scratch.subarray(0, fast) : Buffer.concat(fast);
    return this.checkedOnce(input, out) ? out.toString('utf8') : this.toText(input);
  }

  /** The first answer is compared with the public call's; one that differs turns the kept stream off. */
  private checkedOnce(input: Uint8Array, out: Uint8Array): boolean {
    if (this.checked) return true;
    this.checked = true;
    if (!this.fallback(input).equals(out)) this.usable = false;
    return this.usable;
  }

  /**
   * The answer through the kept stream: its length when it fits the scratch buffer (where it
   * stays until the next call), else its chunks; undefined when the public call must give it.
   */
  private fast(input: Uint8Array): number | Buffer[] | undefined {
    const engine = (this.engine ??= this.open());
    if (engine === undefined) return undefined;
    const { handle, state } = engine;
    let chunks: Buffer[] | undefined;
    let inOff = 0;
    let inLen = input.byteLength;
    for (;;) {
      try {
        handle.writeSync(constants.Z_FINISH, input, inOff, inLen, this.scratch, 0, SCRATCH_BYTES);
      } catch {
        // Refused outright (not through zlib's error event): the stream's state is unknown.
        engine.stream.destroy();
      }
      if (engine.stream.destroyed) {
        // zlib reported an error (its stream is closed now): the public call reports it too.
        this.engine = undefined;
        return undefined;
      }
      const availOut = state[0] ?? 0;
      const availIn = state[1] ?? 0;
      const have = SCRATCH_BYTES - availOut;
      inOff += inLen - availIn;
      inLen = availIn;
      // Output space left over means the stream is done (as in Node's own loop).
      if (availOut !== 0 && chunks === undefined) {
        handle.reset();
        return have;
      }
      chunks ??= [];
      if (have > 0) chunks.push(Buffer.from(this.scratch.subarray(0, have)));
      if (availOut !== 0) break;
    }
    handle.reset();
    return chunks;
  }

  private open(): Engine | undefined {
    const stream = this.make();
    // zlib's errors reach the stream as an 'error' event after the call; the call has answered by
    // then, through the public path, so the event needs a listener and nothing more.
    stream.on('error', () => {});
    const internals = stream as unknown as Partial<StreamInternals>;
    const handle = internals._handle;
    const state = internals._writeState;
    if (
      handle === null ||
      typeof handle !== 'object' ||
      typeof handle.writeSync !== 'function' ||
      typeof handle.reset !== 'function' ||
      !(state instanceof Uint32Array)
    ) {
      this.usable = false;
      stream.destroy();
      return undefined;
    }
    return { stream, handle, state };
  }
}

/** Output taken per `writeSync`: a packed or unpacked task record fits in one. */
const SCRATCH_BYTES = 64 * 1024;

interface NativeHandle {
  writeSync(
    flush: number,
    input: Uint8Array,
    inOff: number,
    inLen: number,
    out: Uint8Array,
    outOff: number,
    outLen: number,
  ): void;
  reset(): void;
}

/** What Node's zlib stream keeps besides its public face (lib/zlib.js). */
interface StreamInternals {
  _handle: NativeHandle | null;
  /** [output bytes left, input bytes left] after each write. */
  _writeState: Uint32Array;
}

interface Engine {
  stream: Deflate | Inflate;
  handle: NativeHandle;
  state: Uint32Array;
}
