// The server's time on the CPU, sampled by Linux `perf` (`--oncpu` of profile-step.mjs and
// profile-step-sqlite.mjs). V8's own profile (`--cpu-prof`) samples the main thread's wall clock:
// a thread descheduled inside a system call counts as busy there, so a socket write that wakes
// the PostgreSQL backend or a worker, which then runs on the writer's core, shows as the write's
// time although the server used no CPU for it (docs/PERFORMANCE.md, "Measured: the server's time
// on the CPU"). perf samples only a thread that runs, on every thread of the process (the
// garbage collector's and the compiler's helpers too), kernel and native code included; with
// `--perf-basic-prof` the server writes where its JIT code lies (/tmp/perf-<pid>.map), so
// JavaScript frames have names.
//
// Needs `perf` (Debian's linux-perf) and leave to sample the process (kernel.perf_event_paranoid
// of 2 or less allows a user's own processes).
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

/** The server's node flags for named JIT frames. */
export const ONCPU_NODE_ARGS = ['--perf-basic-prof'];

/** Fails at once, with what is missing, when perf cannot sample here. */
export function checkPerf() {
  const probe = spawnSync('perf', ['--version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0)
    throw new Error('--oncpu needs Linux perf (Debian package linux-perf) on the PATH');
}

/** Samples `pid` (every thread) from `start()` to `stop()`, at `frequency` Hz of CPU time. */
export class OnCpuRecorder {
  constructor(pid, { frequency = 999 } = {}) {
    this.pid = pid;
    this.frequency = frequency;
    this.file = join(tmpdir(), `baton-oncpu-${process.pid}-${pid}.data`);
  }

  start() {
    this.child = spawn(
      'perf',
      ['record', '-F', String(this.frequency), '-g', '-p', String(this.pid), '-o', this.file],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let stderr = '';
    this.child.stderr.on('data', (chunk) => (stderr = (stderr + chunk).slice(-2000)));
    this.exited = new Promise((resolve, reject) => {
      this.child.once('error', reject);
      this.child.once('exit', (code, signal) =>
        code === 0 || signal === 'SIGINT' || code === 130
          ? resolve()
          : reject(new Error(`perf record: ${stderr.trim()}`)),
      );
    });
  }

  async stop() {
    this.child.kill('SIGINT');
    await this.exited;
  }

  /** Markdown lines: where the samples fell, by thread and kind, and by nearest JavaScript function. */
  async summary(top = 25) {
    try {
      return render(await readSamples(this.file), top, this.frequency, String(this.pid));
    } finally {
      rmSync(this.file, { force: true });
      rmSync(join(tmpdir(), `perf-${this.pid}.map`), { force: true });
      // `--perf-basic-prof` also has V8 write a log of its own in the working directory.
      for (const name of readdirSync('.'))
        if (name.startsWith('isolate-') && name.endsWith(`-${this.pid}-v8.log`))
          rmSync(name, { force: true });
    }
  }
}

/**
 * Each sample: its thread and its frames, innermost first (`perf script -F tid,ip,sym,dso`), each
 * frame its symbol and the object it lies in, e.g. `tcp_sendmsg ([kernel.kallsyms])`.
 */
async function readSamples(file) {
  const script = spawn('perf', ['script', '-F', 'tid,ip,sym,dso', '-i', file], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const samples = [];
  let current;
  for await (const line of createInterface({ input: script.stdout, crlfDelay: Infinity })) {
    if (line.trim() === '') {
      current = undefined;
      continue;
    }
    if (current === undefined) {
      current = { tid: line.trim(), frames: [] };
      samples.push(current);
    } else current.frames.push(line.trim().replace(/^[0-9a-f]+ /, ''));
  }
  return samples;
}

/** A frame's symbol, without the object it lies in. */
function symbolOf(frame) {
  return frame.replace(/ \([^()]*\)$/, '');
}

/** What a frame is, by the object it lies in, then by its symbol (V8's and the libraries' own names). */
function kindOf(frame) {
  const object = /\(([^()]*)\)$/.exec(frame)?.[1] ?? '';
  if (object.includes('kernel')) return 'kernel';
  if (object.includes('sqlite')) return 'SQLite';
  const symbol = symbolOf(frame);
  if (
    /Scaveng|MarkCompact|Sweeper|ConcurrentMarking|Evacuat|GCTracer|SemiSpace|MarkingVisitor|IncrementalMarking|RememberedSet|CollectGarbage/.test(
      symbol,
    )
  )
    return 'garbage collector';
  if (/compiler::|Compile|Maglev|BytecodeGenerator|Parser::|Scanner::/.test(symbol)) return 'compiler';
  if (/^JS:|^RegExp:/.test(symbol)) return 'JavaScript (compiled)';
  if (/^Builtins_.*IC|IC::|StubCache|LookupIterator|TransitionArray|DescriptorArray/.test(symbol))
    return 'property access (inline caches)';
  if (/Json/.test(symbol)) return 'JSON';
  if (
    /deflate|inflate|pqdownheap|build_tree|compress_block|send_tree|adler32|longest_match|_tr_/.test(symbol)
  )
    return 'zlib';
  if (/^(_int_)?malloc|^_int_free|^cfree|^free$|memmove|memset|memcpy|unlink_chunk/.test(symbol))
    return 'memory (libc)';
  if (/^Builtins_/.test(symbol)) return 'V8 builtins';
  if (/v8::|node::|uv_|uv__|llhttp/.test(symbol)) return 'V8 and Node runtime';
  if (/libc|libstdc|vdso/.test(object)) return 'libc';
  return 'unknown';
}

/** A helper thread's sample by what its whole stack was doing (V8's platform threads). */
function threadOf(sample, main) {
  if (sample.tid === main) return 'main thread';
  const stack = sample.frames.map(symbolOf).join(' ');
  if (/compiler::|Compile|Maglev|OptimizedCompilationJob/.test(stack)) return 'helper threads: compiler';
  if (/Scaveng|MarkCompact|Sweeper|ConcurrentMarking|Evacuat|Marking|CollectGarbage|Heap::/.test(stack))
    return 'helper threads: garbage collector';
  return 'helper threads: other';
}

/**
 * The part of the server a main-thread sample worked for: the innermost frame that names one.
 * So a JSON parse inside the store counts as the store's, a socket write under the HTTP
 * framework as HTTP's. It says how much of one thread's time is the store's own, and how much
 * could run elsewhere.
 */
const LAYERS = [
  [
    'store (SQL, drivers, records)',
    /\/src\/store|better-sqlite3|\(.*sqlite.*\)$|\/pg\/lib|pg-protocol|\/pg-pool\//,
  ],
  [
    'engine (decisions, hand-outs, scripts)',
    /\/src\/(engine|decisions|operations|handout|instructions|loops|events|scripts|integrations)\//,
  ],
  [
    'HTTP (framework, routes, sockets)',
    /fastify|find-my-way|avvio|light-my-request|\/src\/http\/|node:_http|node:net|node:internal\/streams|node:internal\/http|llhttp|node:stream/,
  ],
];

function layerOf(sample) {
  for (const frame of sample.frames) {
    for (const [name, pattern] of LAYERS) if (pattern.test(frame)) return name;
  }
  return 'other (event loop, timers, GC outside a call)';
}

function pct(n, of) {
  return `${((100 * n) / of).toFixed(1)} %`;
}

/** `main`: the main thread's id, the process's own. */
function render(samples, top, frequency, main) {
  if (samples.length === 0) return ['On-CPU profile: no samples (did perf have leave to sample the server?)'];
  const onMain = samples.filter((s) => s.tid === main);
  const threads = new Map();
  const kinds = new Map();
  const nearest = new Map();
  const leaves = new Map();
  const layers = new Map();
  // Property access that missed its inline cache is charged to no function of its own: where
  // it happens says which objects change shape.
  const slowAccess = new Map();
  for (const s of samples) {
    const leaf = s.frames[0] ?? '[unknown] (unknown)';
    const thread = threadOf(s, main);
    threads.set(thread, (threads.get(thread) ?? 0) + 1);
    if (s.tid !== main) continue;
    const layer = layerOf(s);
    layers.set(layer, (layers.get(layer) ?? 0) + 1);
    const kind = kindOf(leaf);
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
    leaves.set(symbolOf(leaf), (leaves.get(symbolOf(leaf)) ?? 0) + 1);
    // The function the sample is charged to: the nearest JavaScript frame, with the builtins,
    // runtime and system calls it called directly; a sample with none names its native frames.
    const js = s.frames.map(symbolOf).find((f) => f.startsWith('JS:'));
    const name = js
      ? js.replace(/^JS:[*~^+]?/, '').replace(/file:\/\/|\/[^ ]*\/(node_modules|packages)\//g, '')
      : `(native) ${symbolOf(s.frames.at(-1) ?? '')} … ${symbolOf(leaf)}`.slice(0, 100);
    nearest.set(name, (nearest.get(name) ?? 0) + 1);
    if (kind === 'property access (inline caches)') slowAccess.set(name, (slowAccess.get(name) ?? 0) + 1);
  }
  const sorted = (map) => [...map].sort((a, b) => b[1] - a[1]);
  const lines = [
    `On-CPU profile (perf, ${frequency} Hz): ${samples.length} samples, ${(samples.length / frequency).toFixed(1)} s of CPU; the main thread ${pct(onMain.length, samples.length)}`,
    '',
    "| thread | share of the server's CPU |",
    '| --- | ---: |',
    ...sorted(threads).map(([k, v]) => `| ${k} | ${pct(v, samples.length)} |`),
    '',
    '| main thread, by what ran | share |',
    '| --- | ---: |',
    ...sorted(kinds).map(([k, v]) => `| ${k} | ${pct(v, onMain.length)} |`),
    '',
    '| main thread, by the part of the server it worked for (innermost frame that names one) | share |',
    '| --- | ---: |',
    ...sorted(layers).map(([k, v]) => `| ${k} | ${pct(v, onMain.length)} |`),
    '',
    '| main thread, by the function the sample was in | share |',
    '| --- | ---: |',
    ...sorted(leaves)
      .slice(0, top)
      .map(([k, v]) => `| \`${k.slice(0, 110)}\` | ${pct(v, onMain.length)} |`),
    '',
    '| main thread, by nearest JavaScript function (with the builtins and system calls it made) | share |',
    '| --- | ---: |',
    ...sorted(nearest)
      .slice(0, top)
      .map(([k, v]) => `| \`${k}\` | ${pct(v, onMain.length)} |`),
    '',
    '| main thread, property access (inline caches) by nearest JavaScript function | share |',
    '| --- | ---: |',
    ...sorted(slowAccess)
      .slice(0, 15)
      .map(([k, v]) => `| \`${k}\` | ${pct(v, onMain.length)} |`),
  ];
  return lines;
}
