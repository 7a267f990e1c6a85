// The report's and charts' pure pieces on made-up results: node --test bench/lib/
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { chartRows, handoffLatencySvg, stepsPerSecondSvg } from './chart.mjs';
import { compare, renderMarkdown, renderTable, summarizePass, targets } from './report.mjs';

/** A BENCH_RESULT of `steps` steps in `seconds`, every hand-off `ms` but the slowest 2 % (the p99). */
function raw(label, { steps, seconds, ms = 1, slowMs = ms * 5, processes = [], cpu, storage }) {
  const handoffMs = Array.from({ length: 100 }, (_, i) => (i >= 98 ? slowMs : ms));
  return {
    label,
    runsCompleted: steps / 10,
    steps,
    seconds,
    handoffMs,
    processes,
    ...(cpu ? { cpu } : {}),
    ...(storage ? { storage } : {}),
    notes: [`${label} note`],
  };
}

const system = (id, kind, throughput, latency) => ({
  id,
  kind,
  throughput: throughput.status ? throughput : summarizePass(throughput),
  latency: latency.status ? latency : summarizePass(latency),
});

/** Baton-PG 4,000 steps/s; SQLite exactly 3×; the best peer 3,000; a failed peer; a ceiling of 10,000. */
function sample({ pgLight = { ms: 1.5, slowMs: 8 } } = {}) {
  const mb = (n) => n * 1024 * 1024;
  return [
    system(
      'baton-postgres',
      'baton',
      raw('Baton (PostgreSQL)', {
        steps: 8000,
        seconds: 2,
        processes: [{ name: 'Baton server', peakRssBytes: mb(120) }],
        storage: { bytes: 8000 * 1234.4, bytesPerStep: 1234.4, liveBytesPerStep: 987.6 },
        cpu: [
          { name: 'harness (workers)', ms: 800 },
          { name: 'Baton server', ms: 4000 },
          { name: 'PostgreSQL backends', ms: 3200 },
        ],
      }),
      raw('Baton (PostgreSQL)', {
        steps: 100,
        seconds: 1,
        ...pgLight,
        processes: [{ name: 'Baton server', peakRssBytes: mb(140) }],
        cpu: [
          { name: 'harness (workers)', ms: 10 },
          { name: 'Baton server', ms: 50 },
          { name: 'PostgreSQL backends', ms: 30 },
        ],
      }),
    ),
    system(
      'baton-sqlite',
      'baton',
      raw('Baton (embedded SQLite)', {
        steps: 12000,
        seconds: 1,
        storage: { bytes: 12000 * 1100, bytesPerStep: 1100, liveBytesPerStep: 1030 },
      }),
      raw('Baton (embedded SQLite)', { steps: 100, seconds: 1, ms: 0.5 }),
    ),
    system(
      'graphile-worker',
      'peer',
      raw('Graphile Worker 0.17.3', {
        steps: 6000,
        seconds: 2,
        cpu: [
          { name: 'harness (workers)', ms: 3000 },
          { name: 'PostgreSQL backends', ms: 3600 },
        ],
      }),
      raw('Graphile Worker 0.17.3', { steps: 100, seconds: 1, ms: 3 }),
    ),
    system(
      'pg-boss',
      'peer',
      { status: 'failed', error: 'boom | with a pipe\nand a second line' },
      { status: 'skipped', reason: '--skip-latency' },
    ),
    system(
      'bullmq',
      'peer',
      raw('BullMQ 6 (Redis 7) <&>', { steps: 2000, seconds: 1 }),
      raw('BullMQ 6 (Redis 7) <&>', { steps: 100, seconds: 1, ms: 0.4 }),
    ),
    system(
      'postgres-ceiling',
      'ceiling',
      raw('PostgreSQL 15 commits', { steps: 10000, seconds: 1 }),
      raw('PostgreSQL 15 commits', { steps: 100, seconds: 1, ms: 0.2 }),
    ),
  ];
}

/** Fails unless `xml` is one well-formed element tree: tags nest, attributes are quoted, text and attribute values escape & and <. */
function assertWellFormed(xml) {
  const token = /<(\/?)([A-Za-z][\w:-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>|([^<]+)/y;
  const badEntity = /&(?!(?:amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);)/;
  const stack = [];
  let roots = 0;
  let m;
  while (token.lastIndex < xml.length) {
    const at = token.lastIndex;
    m = token.exec(xml);
    assert.ok(m, `malformed markup at ${at}: ${xml.slice(at, at + 60)}`);
    const [, close, name, attributes, selfClosing, textContent] = m;
    if (textContent !== undefined) {
      assert.ok(!badEntity.test(textContent), `bare & in text at ${at}`);
      assert.ok(stack.length > 0 || textContent.trim() === '', `text outside the root at ${at}`);
      continue;
    }
    assert.ok(!badEntity.test(attributes ?? ''), `bare & in an attribute at ${at}`);
    if (close) {
      assert.equal(stack.pop(), name, `</${name}> closes the wrong element at ${at}`);
    } else {
      if (stack.length === 0) roots++;
      if (!selfClosing) stack.push(name);
    }
  }
  assert.deepEqual(stack, [], 'unclosed elements');
  assert.equal(roots, 1, 'one root element');
  assert.match(xml, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
}

describe('summarizePass', () => {
  it('answers rates and percentiles and drops the samples', () => {
    const s = summarizePass(raw('x', { steps: 5000, seconds: 2, ms: 1, slowMs: 9 }));
    assert.equal(s.status, 'ok');
    assert.equal(s.stepsPerSecond, 2500);
    assert.equal(s.runsPerSecond, 250);
    assert.deepEqual(s.handoff, { count: 100, p50: 1, p90: 1, p99: 9, max: 9 });
    assert.equal('handoffMs' in s, false);
  });

  it('answers null latencies when there are no samples', () => {
    const s = summarizePass({ ...raw('x', { steps: 10, seconds: 1 }), handoffMs: [] });
    assert.equal(s.handoff.p50, null);
    assert.equal(s.handoff.count, 0);
  });
});

describe('compare', () => {
  it("divides Baton-PG's steps/s by each system's", () => {
    const c = compare(sample());
    assert.equal(c.batonPgStepsPerSecond, 4000);
    assert.equal(c.batonPgOver.bullmq, 2);
    assert.equal(c.batonPgOver['graphile-worker'], 4000 / 3000);
    assert.equal(c.batonPgOver['pg-boss'], null, 'a failed system has no ratio');
    assert.equal(c.batonPgShareOfCeiling, 0.4);
    assert.equal(c.sqliteOverBatonPg, 3);
  });

  it('answers no ratios without Baton-PG', () => {
    const c = compare(sample().filter((s) => s.id !== 'baton-postgres'));
    assert.equal(c.batonPgOver.bullmq, null);
    assert.equal(c.sqliteOverBatonPg, null);
    assert.equal(c.batonPgShareOfCeiling, null);
  });
});

/** DBOS at the given steps/s, CPU a step and light-load p50, for the lead target. */
function dbos({ rate = 3500, cpuMs = 1.2, p50 = 2 } = {}) {
  return system(
    'dbos',
    'peer',
    raw('DBOS Transact 5', {
      steps: rate,
      seconds: 1,
      cpu: [{ name: 'harness (workers)', ms: rate * cpuMs }],
    }),
    raw('DBOS Transact 5', { steps: 100, seconds: 1, ms: p50 }),
  );
}

const byName = (list) => Object.fromEntries(list.map((t) => [t.target, t]));

describe('targets', () => {
  it("judges each of the round's targets on the figures of the same run", () => {
    const list = targets([...sample(), dbos()]);
    assert.deepEqual(
      list.map((t) => [t.target, t.status, t.detail]),
      [
        ["Baton-PG steps/s ≥ Graphile Worker 0.17.3's", 'met', '4,000 vs 3,000 steps/s'],
        ["Baton-PG CPU per step (all processes) ≤ Graphile Worker 0.17.3's", 'met', '1.00 vs 1.10 ms'],
        [
          'Baton-PG ahead of DBOS Transact 5 in steps/s, CPU per step and light-load hand-off p50',
          'met',
          'steps/s 4,000 vs 3,500, CPU 1.00 vs 1.20 ms, p50 1.50 vs 2.00 ms',
        ],
        ["Baton-SQLite steps/s ≥ 2.00× Baton-PG's", 'met', '3.00×: 12,000 vs 4,000 steps/s'],
        ["2 Baton nodes on one PostgreSQL ≥ 1.60× one node's steps/s", 'not measured', ''],
        [
          'Baton-PG stores a finished step in ≤ 1 KB (live rows)',
          'met',
          '988 bytes a step, 1,234 as the pass left them',
        ],
        [
          'Baton-SQLite stores a finished step in ≤ 1 KB (live rows)',
          'not met',
          '1,030 bytes a step, 1,100 as the pass left them',
        ],
        [
          "Baton-PG light-load hand-off p50 ≤ Graphile Worker 0.17.3's and p99 ≤ 10 ms",
          'met',
          'p50 1.50 vs 3.00 ms, p99 8.00 ms (100 hand-offs)',
        ],
      ],
    );
  });

  it('fails the lead target on any one of its three figures, ties included', () => {
    const lead = (peer) => targets([...sample(), peer])[2];
    assert.equal(lead(dbos({ rate: 4000 })).status, 'not met', 'a tie in steps/s is not ahead');
    assert.equal(lead(dbos({ cpuMs: 0.99 })).status, 'not met');
    const slowP50 = lead(dbos({ p50: 1.4 }));
    assert.equal(slowP50.status, 'not met');
    assert.match(slowP50.detail, /p50 1\.50 vs 1\.40 ms/);
    assert.equal(lead(dbos()).status, 'met');
  });

  it('says not measured for a peer that did not run, and not met once a measured part fails', () => {
    const systems = sample();
    const lead = targets(systems)[2];
    assert.equal(lead.status, 'not measured');
    assert.equal(lead.target, 'Baton-PG ahead of dbos in steps/s, CPU per step and light-load hand-off p50');
    const pg = systems.find((s) => s.id === 'baton-postgres');
    pg.latency = { status: 'skipped', reason: '--skip-latency' };
    const withDbos = byName(targets([...systems, dbos({ rate: 5000 })]));
    const partial =
      withDbos['Baton-PG ahead of DBOS Transact 5 in steps/s, CPU per step and light-load hand-off p50'];
    assert.equal(partial.status, 'not met', 'steps/s fails though p50 was not measured');
    assert.equal(partial.detail, 'steps/s 4,000 vs 5,000, CPU 1.00 vs 1.20 ms');
    const light = withDbos["Baton-PG light-load hand-off p50 ≤ Graphile Worker 0.17.3's and p99 ≤ 10 ms"];
    assert.equal(light.status, 'not measured');
  });

  it('fails the latency target on a slow p99 and the graphile-worker targets on a faster, cheaper peer', () => {
    const systems = sample({ pgLight: { ms: 1.5, slowMs: 12 } });
    const graphile = systems.find((s) => s.id === 'graphile-worker');
    graphile.throughput.stepsPerSecond = 4001;
    graphile.throughput.cpuMsPerStep = 0.99;
    systems.find((s) => s.id === 'baton-sqlite').throughput.stepsPerSecond = 7999;
    const list = targets(systems);
    assert.deepEqual(
      list.map((t) => t.status),
      ['not met', 'not met', 'not measured', 'not met', 'not measured', 'met', 'not met', 'not met'],
    );
    assert.equal(list[7].detail, 'p50 1.50 vs 3.00 ms, p99 12.0 ms (100 hand-offs)');
  });

  it('holds two nodes to 1.6× one node', () => {
    const systems = sample();
    const pg = systems.find((s) => s.id === 'baton-postgres');
    const two = {
      ...pg,
      id: 'baton-postgres-2-nodes',
      throughput: { ...pg.throughput, stepsPerSecond: 6400 },
    };
    systems.push(two);
    const met = targets(systems)[4];
    assert.equal(met.status, 'met');
    // With how many cores each kept busy: the target holds until the machine's CPU is spent.
    assert.equal(met.detail, '1.60×: 6,400 vs 4,000 steps/s; cores busy (all processes) 6.40 vs 4.00');
    assert.equal(compare(systems).twoNodesOverOne, 1.6);
    two.throughput.stepsPerSecond = 6000;
    assert.equal(targets(systems)[4].status, 'not met');
    two.throughput.cpuMsPerStep = null;
    assert.equal(targets(systems)[4].detail, '1.50×: 6,000 vs 4,000 steps/s');
  });

  it('says not measured when Baton-PG failed', () => {
    const systems = sample();
    systems[0] = {
      ...systems[0],
      throughput: { status: 'failed', error: 'x' },
      latency: { status: 'failed', error: 'x' },
    };
    assert.deepEqual(
      targets(systems).map((t) => t.status),
      // SQLite's storage stands on its own figures.
      [
        'not measured',
        'not measured',
        'not measured',
        'not measured',
        'not measured',
        'not measured',
        'not met',
        'not measured',
      ],
    );
  });
});

describe('renderTable', () => {
  const table = renderTable(sample());
  const rows = table.split('\n').filter((l) => l.startsWith('|'));
  it('has one row per system and the same columns on every row', () => {
    assert.equal(rows.length, 2 + 6);
    const columns = (line) => line.replace(/\\\|/g, '').split('|').length;
    for (const row of rows) assert.equal(columns(row), columns(rows[0]), row);
  });

  it('shows rates, latencies, memory and ratios', () => {
    assert.match(
      rows[2],
      /^\| \*\*Baton \(PostgreSQL\)\*\* \| 4,000 \| 400 \| 1\.00 \(harness 0\.100, server 0\.500, PG 0\.400\) \| 0\.900 \(harness 0\.100, server 0\.500, PG 0\.300\) \| 1\.50 \/ 8\.00 \| 1\.00 \/ 5\.00 \| 1,234 \(live 988\) \| Baton server 140 \| 1\.00× \|$/,
    );
    assert.match(table, /\| BullMQ 6 \(Redis 7\) <&> \| 2,000 \| .* \| 2\.00× \|/);
    assert.match(table, /CPU ms \/ step: user \+ system CPU of every process/);
    assert.match(table, /PostgreSQL 15 commits † \| 10,000 \| — \| .* \| 0\.40× \(40% of ceiling\) \|/);
    assert.match(table, /Embedded SQLite ÷ Baton-PG \(steps\/s\): 3\.00×/);
    assert.match(table, /Stored bytes \/ step: what the throughput pass added to the store/);
  });

  it('reports a failed system with the first line of its error, pipes escaped', () => {
    assert.match(
      table,
      /\| pg-boss \| failed: boom \\\| with a pipe \| — \| — \| — \| — \| — \| — \| — \| — \|$/m,
    );
  });
});

describe('renderMarkdown', () => {
  it('has the options, the table and a line per target', () => {
    const md = renderMarkdown({
      options: { runs: 2000, workers: 16, steps: 10, latencyRuns: 200, skipLatency: false },
      machine: {
        cpuCount: 2,
        cpuModel: 'Test CPU',
        totalMemoryBytes: 8 * 1024 ** 3,
        platform: 'Linux',
        node: 'v20',
        postgres: '16.1',
        redis: '7.2',
      },
      startedAt: '2025-01-01T00:00:00Z',
      finishedAt: '2025-01-01T00:10:00Z',
      systems: sample(),
      skipped: [{ id: 'dbos', reason: 'bench/systems/dbos.mjs does not exist yet' }],
    });
    assert.match(md, /2000 runs of a 10-step linear workflow, 16 concurrent workers/);
    assert.match(md, /2 × Test CPU, 8\.0 GiB RAM/);
    assert.match(
      md,
      /- Baton-PG steps\/s ≥ Graphile Worker 0\.17\.3's: \*\*met\*\* \(4,000 vs 3,000 steps\/s\)/,
    );
    assert.match(
      md,
      /- Baton-SQLite steps\/s ≥ 2\.00× Baton-PG's: \*\*met\*\* \(3\.00×: 12,000 vs 4,000 steps\/s\)/,
    );
    assert.match(
      md,
      /- 2 Baton nodes on one PostgreSQL ≥ 1\.60× one node's steps\/s: \*\*not measured\*\*$/m,
    );
    assert.match(md, /- `dbos`: bench\/systems\/dbos\.mjs does not exist yet/);
    assert.match(md, / {2}- throughput: failed: boom \| with a pipe/);
  });
});

describe('charts', () => {
  const rows = chartRows(sample());

  it('draws well-formed SVG with every value and escaped labels', () => {
    const bars = stepsPerSecondSvg(rows, { subtitle: '2000 runs & 16 workers' });
    assertWellFormed(bars);
    for (const value of ['4,000', '12,000', '3,000', '2,000', '10,000'])
      assert.ok(bars.includes(`>${value}</text>`), value);
    assert.ok(bars.includes('BullMQ 6 (Redis 7) &lt;&amp;&gt;'));
    assert.ok(bars.includes('>failed</text>'), 'a failed system is named, without a bar');
    assert.ok(bars.includes('stroke-dasharray'), 'the ceiling is dashed');

    const latency = handoffLatencySvg(rows);
    assertWellFormed(latency);
    assert.ok(latency.includes('>p50 1.50 ms</text>'));
    assert.ok(latency.includes('>p99 8.00 ms</text>'));
  });

  it('draws an empty chart without failing', () => {
    assertWellFormed(stepsPerSecondSvg([]));
    assertWellFormed(handoffLatencySvg([]));
  });

  it('rejects a malformed document in its own check', () => {
    assert.throws(() => assertWellFormed('<svg xmlns="http://www.w3.org/2000/svg"><g></svg>'));
    assert.throws(() => assertWellFormed('<svg xmlns="http://www.w3.org/2000/svg"><text>a & b</text></svg>'));
  });
});
