// The report's two charts as hand-written SVG: steps/s per system (a horizontal bar each, the
// commit ceiling as a dashed bar and line) and light-load hand-off p50/p99 on a log scale.
import { formatMs, formatRate } from './format.mjs';
import { labelOf } from './report.mjs';

const COLOUR = { baton: '#2563eb', peer: '#9ca3af', ceiling: '#f59e0b' };
const CEILING_STROKE = '#b45309';
const FAILED = '#b91c1c';
const LAYOUT = { width: 900, label: 290, right: 130, top: 84, row: 36, bar: 22, bottom: 44 };

function escapeXml(text) {
  return String(text)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

function attrs(map) {
  return Object.entries(map)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => ` ${k}="${escapeXml(typeof v === 'number' ? +v.toFixed(2) : v)}"`)
    .join('');
}

const el = (name, map) => `<${name}${attrs(map)}/>`;
// dy centres the text on y without dominant-baseline, which some renderers ignore.
const text = (content, map) => `<text${attrs({ dy: '0.35em', ...map })}>${escapeXml(content)}</text>`;

function frame(width, height, titleText, subtitle, body) {
  return [
    `<svg xmlns="http://www.w3.org/2000/svg"${attrs({ width, height, viewBox: `0 0 ${width} ${height}` })} font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="13" fill="#111827">`,
    el('rect', { width, height, fill: '#ffffff' }),
    text(titleText, { x: 16, y: 20, 'font-size': 16, 'font-weight': 'bold' }),
    subtitle ? text(subtitle, { x: 16, y: 40, fill: '#4b5563' }) : '',
    ...body,
    '</svg>\n',
  ]
    .filter(Boolean)
    .join('\n');
}

function legend(items, y) {
  let x = 16;
  const out = [];
  for (const { label, fill, stroke, dash, opacity } of items) {
    out.push(
      el('rect', {
        x,
        y: y - 6,
        width: 12,
        height: 12,
        fill,
        stroke,
        'stroke-dasharray': dash,
        'fill-opacity': opacity,
      }),
    );
    out.push(text(label, { x: x + 18, y }));
    x += 30 + label.length * 7.5;
  }
  return out;
}

/** A round tick spacing giving about `count` ticks up to `max`. */
function niceStep(max, count = 5) {
  const raw = max / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const f = raw / power;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * power;
}

const has = (value) => value !== null && value !== undefined && Number.isFinite(value) && value > 0;

/** What the charts need of each system. */
export function chartRows(systems) {
  return systems.map((system) => {
    const { throughput, latency } = system;
    const light = latency?.status === 'ok' && latency.handoff.count > 0 ? latency.handoff : undefined;
    return {
      id: system.id,
      kind: system.kind,
      label: labelOf(system),
      failed: throughput?.status === 'failed',
      latencyFailed: latency?.status === 'failed',
      stepsPerSecond: throughput?.status === 'ok' ? throughput.stepsPerSecond : null,
      p50: light?.p50 ?? null,
      p99: light?.p99 ?? null,
    };
  });
}

export function stepsPerSecondSvg(rows, { subtitle = '' } = {}) {
  const { width, label, right, top, row, bar, bottom } = LAYOUT;
  const plot = width - label - right;
  const values = rows.map((r) => r.stepsPerSecond).filter(has);
  const step = niceStep(Math.max(1, ...values));
  const max = Math.ceil(Math.max(1, ...values) / step) * step;
  const x = (v) => label + (v / max) * plot;
  const plotBottom = top + rows.length * row;
  const withCeiling = rows.some((r) => r.kind === 'ceiling');
  const body = legend(
    [
      { label: 'Baton', fill: COLOUR.baton },
      { label: 'peers', fill: COLOUR.peer },
      ...(withCeiling
        ? [{ label: 'PostgreSQL commit ceiling', fill: COLOUR.ceiling, stroke: CEILING_STROKE, dash: '4 2' }]
        : []),
    ],
    62,
  );
  for (let i = 0, t = 0; t <= max + step / 1e6; i++, t = i * step) {
    body.push(el('line', { x1: x(t), y1: top - 4, x2: x(t), y2: plotBottom, stroke: '#e5e7eb' }));
    body.push(
      text(t.toLocaleString('en-US'), {
        x: x(t),
        y: plotBottom + 14,
        'text-anchor': 'middle',
        fill: '#4b5563',
        'font-size': 11,
      }),
    );
  }
  body.push(
    text('steps per second (higher is better)', {
      x: label + plot / 2,
      y: plotBottom + 32,
      'text-anchor': 'middle',
      fill: '#4b5563',
    }),
  );
  rows.forEach((r, i) => {
    const y = top + i * row + (row - bar) / 2;
    const mid = y + bar / 2;
    body.push(
      text(r.label, {
        x: label - 10,
        y: mid,
        'text-anchor': 'end',
        'font-weight': r.kind === 'baton' ? 'bold' : undefined,
      }),
    );
    if (!has(r.stepsPerSecond)) {
      body.push(
        text(r.failed ? 'failed' : 'not measured', {
          x: x(0) + 6,
          y: mid,
          fill: FAILED,
          'font-style': 'italic',
        }),
      );
      return;
    }
    const ceiling = r.kind === 'ceiling';
    body.push(
      el('rect', {
        x: x(0),
        y,
        width: Math.max(1, x(r.stepsPerSecond) - x(0)),
        height: bar,
        fill: COLOUR[r.kind] ?? COLOUR.peer,
        'fill-opacity': ceiling ? 0.35 : undefined,
        stroke: ceiling ? CEILING_STROKE : undefined,
        'stroke-dasharray': ceiling ? '6 3' : undefined,
      }),
    );
    body.push(
      text(formatRate(r.stepsPerSecond), { x: x(r.stepsPerSecond) + 6, y: mid, 'font-weight': 'bold' }),
    );
  });
  // The ceiling also as a line across every bar: how close each system comes to it.
  for (const r of rows.filter((c) => c.kind === 'ceiling' && has(c.stepsPerSecond))) {
    body.push(
      el('line', {
        x1: x(r.stepsPerSecond),
        y1: top - 4,
        x2: x(r.stepsPerSecond),
        y2: plotBottom,
        stroke: CEILING_STROKE,
        'stroke-width': 1.5,
        'stroke-dasharray': '6 3',
      }),
    );
  }
  return frame(width, plotBottom + bottom, 'Throughput: steps per second', subtitle, body);
}

export function handoffLatencySvg(rows, { subtitle = '' } = {}) {
  const { width, label, right, top, bottom } = LAYOUT;
  const row = 40;
  const bar = 13;
  const plot = width - label - right;
  const values = rows.flatMap((r) => [r.p50, r.p99]).filter(has);
  const lo = 10 ** Math.floor(Math.log10(Math.min(1, ...values)));
  let hi = 10 ** Math.ceil(Math.log10(Math.max(lo * 10, ...values)));
  if (hi <= lo) hi = lo * 10;
  const x = (v) => label + ((Math.log10(v) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo))) * plot;
  const plotBottom = top + rows.length * row;
  const body = legend(
    [
      { label: 'Baton', fill: COLOUR.baton },
      { label: 'peers', fill: COLOUR.peer },
      ...(rows.some((r) => r.kind === 'ceiling')
        ? [{ label: 'PostgreSQL commit', fill: COLOUR.ceiling }]
        : []),
      { label: 'upper bar p50, lower (lighter) bar p99', fill: '#6b7280', opacity: 0.45 },
    ],
    62,
  );
  for (let decade = lo; decade <= hi * 1.0001; decade *= 10) {
    for (let m = 2; m < 10 && decade < hi; m++) {
      body.push(
        el('line', { x1: x(decade * m), y1: top - 4, x2: x(decade * m), y2: plotBottom, stroke: '#f3f4f6' }),
      );
    }
    body.push(el('line', { x1: x(decade), y1: top - 4, x2: x(decade), y2: plotBottom, stroke: '#d1d5db' }));
    body.push(
      text(String(+decade.toPrecision(1)), {
        x: x(decade),
        y: plotBottom + 14,
        'text-anchor': 'middle',
        fill: '#4b5563',
        'font-size': 11,
      }),
    );
  }
  body.push(
    text('milliseconds, log scale (lower is better)', {
      x: label + plot / 2,
      y: plotBottom + 32,
      'text-anchor': 'middle',
      fill: '#4b5563',
    }),
  );
  rows.forEach((r, i) => {
    const y = top + i * row + (row - 2 * bar - 2) / 2;
    body.push(
      text(r.label, {
        x: label - 10,
        y: y + bar + 1,
        'text-anchor': 'end',
        'font-weight': r.kind === 'baton' ? 'bold' : undefined,
      }),
    );
    if (!has(r.p50) && !has(r.p99)) {
      body.push(
        text(r.latencyFailed ? 'failed' : 'not measured', {
          x: x(lo) + 6,
          y: y + bar + 1,
          fill: FAILED,
          'font-style': 'italic',
        }),
      );
      return;
    }
    [
      ['p50', r.p50, 1],
      ['p99', r.p99, 0.45],
    ].forEach(([name, value, opacity], k) => {
      if (!has(value)) return;
      const top1 = y + k * (bar + 2);
      body.push(
        el('rect', {
          x: x(lo),
          y: top1,
          width: Math.max(1, x(value) - x(lo)),
          height: bar,
          fill: COLOUR[r.kind] ?? COLOUR.peer,
          'fill-opacity': opacity,
        }),
      );
      body.push(
        text(`${name} ${formatMs(value)} ms`, { x: x(value) + 6, y: top1 + bar / 2, 'font-size': 11 }),
      );
    });
  });
  return frame(
    width,
    plotBottom + bottom,
    'Hand-off latency at light load (one run at a time)',
    subtitle,
    body,
  );
}
