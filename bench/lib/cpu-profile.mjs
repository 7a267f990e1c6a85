// A V8 CPU profile (node --cpu-prof) summed up for the profile-step scripts.

/** Self time by function and by where the code lives (a package or a directory of the server). */
export function summarizeProfile(profile, top, file, [from, to]) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map();
  const deltas = profile.timeDeltas;
  // Only the samples taken while the steps ran (timestamps: the same monotonic clock).
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    at += deltas[i] ?? 0;
    if (at >= from && at <= to) self.set(id, (self.get(id) ?? 0) + (deltas[i] ?? 0));
  });
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const place = (url) => {
    if (!url) return '(native / V8)';
    const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
    if (pkg) return pkg[1];
    const server = /packages\/([^/]+)\/dist\/src\/([^/]+)/.exec(url);
    if (server) return `${server[1]}/${server[2]}`;
    if (url.startsWith('node:')) return 'node core';
    return url.split('/').slice(-2).join('/');
  };
  const fns = new Map();
  const places = new Map();
  for (const [id, us] of self) {
    const { callFrame } = byId.get(id);
    const name = callFrame.functionName || '(anonymous)';
    const key = callFrame.url === '' ? name : `${name} ${place(callFrame.url)}:${callFrame.lineNumber + 1}`;
    fns.set(key, (fns.get(key) ?? 0) + us);
    const where = callFrame.url === '' ? `(${name})` : place(callFrame.url);
    places.set(where, (places.get(where) ?? 0) + us);
  }
  const pct = (us) => `${((100 * us) / total).toFixed(1)} %`;
  const lines = [
    `Server CPU profile (${file}), ${(total / 1e6).toFixed(1)} s sampled while the steps ran:`,
    '',
  ];
  lines.push('| where | self |', '| --- | ---: |');
  for (const [k, us] of [...places].sort((a, b) => b[1] - a[1]).slice(0, top))
    lines.push(`| ${k} | ${pct(us)} |`);
  lines.push('', '| function | self |', '| --- | ---: |');
  for (const [k, us] of [...fns].sort((a, b) => b[1] - a[1]).slice(0, top))
    lines.push(`| \`${k}\` | ${pct(us)} |`);
  // Time with callees, for the server's own functions: where in Baton the self time above is spent.
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const inclusive = new Map();
  for (const [id, us] of self) {
    const seen = new Set();
    for (let at = id; at !== undefined; at = parent.get(at)) {
      const { callFrame } = byId.get(at);
      if (!/packages\/[^/]+\/dist\/src\//.test(callFrame.url)) continue;
      const file = callFrame.url.split('/dist/src/')[1];
      const key = `${callFrame.functionName || '(anonymous)'} ${file}:${callFrame.lineNumber + 1}`;
      if (seen.has(key)) continue;
      seen.add(key);
      inclusive.set(key, (inclusive.get(key) ?? 0) + us);
    }
  }
  lines.push('', '| server function | with callees |', '| --- | ---: |');
  for (const [k, us] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, top))
    lines.push(`| \`${k}\` | ${pct(us)} |`);
  return lines;
}
