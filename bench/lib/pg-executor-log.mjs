// Where a PostgreSQL backend's time goes, statement by statement: auto_explain logs every
// statement's plan and executor time (JSON) for one database, and the summary groups them by
// what the plan does (its top node, and the nodes under a Result, Sort, Limit, join or
// aggregate). Executor time only: parsing, planning, commit and the wire are not in it.
//
// The setting is the database's own (ALTER DATABASE … SET), so sessions of other databases on the
// server are untouched; it takes effect for connections opened after it. The server's log must be
// a file this process can read (on Debian: /var/log/postgresql/postgresql-15-main.log).
import { closeSync, openSync, readSync, statSync } from 'node:fs';

/** Turns auto_explain on, for every statement, for connections to `database` opened from now. */
export async function logEveryPlan(admin, database) {
  const db = admin.escapeIdentifier(database);
  await admin.query(`ALTER DATABASE ${db} SET session_preload_libraries = 'auto_explain'`);
  await admin.query(`ALTER DATABASE ${db} SET auto_explain.log_min_duration = 0`);
  await admin.query(`ALTER DATABASE ${db} SET auto_explain.log_format = 'json'`);
}

/** The log's size now: summarize what is written after it. */
export function logOffset(path) {
  return statSync(path).size;
}

function readBetween(path, from, to) {
  const buffer = Buffer.alloc(Math.max(0, to - from));
  const fd = openSync(path, 'r');
  try {
    readSync(fd, buffer, 0, buffer.length, from);
  } finally {
    closeSync(fd);
  }
  return buffer.toString('utf8');
}

function describe(node) {
  if (node['Node Type'] === 'ModifyTable') return `${node.Operation} ${node['Relation Name']}`;
  return node['Relation Name'] ? `${node['Node Type']} ${node['Relation Name']}` : node['Node Type'];
}

const WRAPPERS = new Set(['Result', 'Sort', 'Limit', 'Nested Loop', 'Hash Join', 'Aggregate', 'LockRows']);

/** What a plan does, in a few words: its top node, and for a wrapper the nodes under it. */
function planLabel(plan) {
  const top = describe(plan);
  if (!WRAPPERS.has(plan['Node Type'])) return top;
  const under = (plan.Plans ?? []).slice(0, 3).map(describe).join(', ');
  return under ? `${top} (${under})` : top;
}

function median(sorted) {
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * Markdown rows of the executor time that `database`'s statements logged between two offsets,
 * grouped by plan, per step: executions, median and mean µs each, µs per step.
 */
export function executorSummary(path, from, to, database, steps) {
  const text = readBetween(path, from, to);
  // One entry per log line prefix ("2026-… UTC [pid] user@db LOG:  duration: … ms  plan:").
  const entries = text.split(/\n(?=\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+ \S+ \[\d+\] )/);
  const marker = `@${database} LOG:  duration: `;
  const groups = new Map();
  let total = 0;
  for (const entry of entries) {
    const at = entry.indexOf(marker);
    if (at < 0) continue;
    const ms = Number.parseFloat(entry.slice(at + marker.length));
    const json = entry.indexOf('{', at);
    let plan;
    try {
      plan = JSON.parse(entry.slice(json)).Plan;
    } catch {
      continue; // a utility statement's entry, or one cut at the window's end
    }
    const label = planLabel(plan);
    const list = groups.get(label) ?? [];
    list.push(ms * 1000);
    groups.set(label, list);
    total += ms * 1000;
  }
  const rows = [...groups.entries()]
    .map(([label, us]) => {
      us.sort((a, b) => a - b);
      const sum = us.reduce((a, b) => a + b, 0);
      return { label, n: us.length, median: median(us), mean: sum / us.length, sum };
    })
    .sort((a, b) => b.sum - a.sum);
  const out = [
    '',
    `Executor time (auto_explain), ${(total / steps).toFixed(0)} µs per step in all:`,
    '',
    '| plan | per step | median µs | mean µs | µs / step |',
    '| --- | ---: | ---: | ---: | ---: |',
  ];
  for (const r of rows.slice(0, 20)) {
    out.push(
      `| ${r.label} | ${(r.n / steps).toFixed(2)} | ${r.median.toFixed(0)} | ${r.mean.toFixed(0)} | ${(r.sum / steps).toFixed(1)} |`,
    );
  }
  return out;
}
