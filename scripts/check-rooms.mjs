// Checks the import graph of the TypeScript sources against the room map (scripts/rooms.mjs):
// type-only imports count as much as any other, because a cycle or an upward reach through types
// couples the code as surely as one at run time. Fails on
//   - any cycle between source files,
//   - any import from one room into a room on the same or a higher floor, or not in its list,
//   - any source file in no room (a new directory must be placed on the map first),
//   - any room holding more than 15 % of all source lines,
//   - a "Packages" table in docs/ARCHITECTURE.md that is not the one the map gives.
// `node scripts/check-rooms.mjs --write` rewrites that table instead of comparing it.
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import * as prettier from 'prettier';
import ts from 'typescript';

import { ENGINE_SURFACE_EXCEPTIONS, ROOMS, roomOfPackageImport, roomOfPath } from './rooms.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const MAX_ROOM_SHARE = 0.15;
/** Generated sources: counted in no room's size (they are not written by hand). */
const GENERATED = ['packages/sdk/src/generated/'];
const DOC = 'docs/ARCHITECTURE.md';
const DOC_START =
  '<!-- rooms:start (generated from scripts/rooms.mjs: node scripts/check-rooms.mjs --write) -->';
const DOC_END = '<!-- rooms:end -->';

const problems = [];
const byName = new Map(ROOMS.map((r) => [r.name, r]));

// The table itself: known names, lower floors only.
for (const room of ROOMS) {
  for (const target of room.mayImport) {
    const other = byName.get(target);
    if (other === undefined)
      problems.push(`rooms.mjs: ${room.name} may import "${target}", which is no room`);
    else if (other.floor >= room.floor)
      problems.push(
        `rooms.mjs: ${room.name} (floor ${room.floor}) may import ${target} (floor ${other.floor}): not a lower floor`,
      );
  }
}

function sourceFiles() {
  const out = [];
  const walk = (dir) => {
    for (const name of readdirSync(path.join(ROOT, dir))) {
      if (name === 'node_modules' || name === 'dist') continue;
      const rel = `${dir}/${name}`;
      if (statSync(path.join(ROOT, rel)).isDirectory()) walk(rel);
      else if (/\.tsx?$/.test(name) && !name.endsWith('.d.ts')) out.push(rel);
    }
  };
  for (const pkg of readdirSync(path.join(ROOT, 'packages'))) {
    if (existsSync(path.join(ROOT, 'packages', pkg, 'src'))) walk(`packages/${pkg}/src`);
  }
  return out.sort();
}

const files = sourceFiles();
const fileSet = new Set(files);

/** The source file a relative specifier names (`./x.js` is `./x.ts`), or undefined. */
function resolveRelative(from, specifier) {
  const base = path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier));
  const stem = base.replace(/\.(m?js|jsx)$/, '');
  for (const candidate of [`${stem}.ts`, `${stem}.tsx`, base, `${base}/index.ts`, `${base}/index.tsx`]) {
    if (fileSet.has(candidate)) return candidate;
  }
  return undefined;
}

const graph = new Map();
const lines = new Map();
for (const file of files) {
  const text = readFileSync(path.join(ROOT, file), 'utf8');
  lines.set(file, text.split('\n').length - (text.endsWith('\n') ? 1 : 0));
  const room = roomOfPath(file);
  if (room === undefined) {
    problems.push(`${file}: in no room of scripts/rooms.mjs (add its room to the map)`);
    continue;
  }
  const edges = [];
  // Every import, export-from and import() of the file, `import type` included.
  for (const ref of ts.preProcessFile(text, true, true).importedFiles) {
    const spec = ref.fileName;
    let targetRoom;
    if (spec.startsWith('.')) {
      const target = resolveRelative(file, spec);
      if (target === undefined) continue; // assets (CSS, JSON) and files outside the sources
      edges.push(target);
      targetRoom = roomOfPath(target);
    } else if (spec.startsWith('@baton/')) {
      targetRoom = roomOfPackageImport(spec);
      if (targetRoom === undefined) problems.push(`${file}: imports ${spec}, which is in no room`);
    }
    if (targetRoom === undefined || targetRoom === room) continue;
    const from = byName.get(room);
    const to = byName.get(targetRoom);
    if (!from.mayImport.includes(targetRoom)) {
      const up = to.floor >= from.floor ? ` (floor ${to.floor}, not below ${room}'s ${from.floor})` : '';
      problems.push(`${file}: ${room} may not import ${targetRoom}${up}: ${spec}`);
    }
    if (targetRoom === 'engine' && spec.startsWith('.') && !/\/engine\/index\.js$/.test(spec)) {
      // The engine's surface is one file; the rest of it may move freely.
      if (!ENGINE_SURFACE_EXCEPTIONS.includes(file))
        problems.push(`${file}: imports the engine past its surface (use engine/index.js): ${spec}`);
    }
  }
  graph.set(file, edges);
}

// Cycles between files (Tarjan's strongly connected components, iteratively).
{
  let index = 0;
  const idx = new Map();
  const low = new Map();
  const onStack = new Set();
  const stack = [];
  for (const start of graph.keys()) {
    if (idx.has(start)) continue;
    const work = [[start, 0]];
    idx.set(start, index);
    low.set(start, index);
    index++;
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const top = work[work.length - 1];
      const [node, i] = top;
      const next = graph.get(node) ?? [];
      if (i < next.length) {
        top[1]++;
        const w = next[i];
        if (!idx.has(w)) {
          idx.set(w, index);
          low.set(w, index);
          index++;
          stack.push(w);
          onStack.add(w);
          work.push([w, 0]);
        } else if (onStack.has(w)) low.set(node, Math.min(low.get(node), idx.get(w)));
      } else {
        work.pop();
        if (work.length > 0) {
          const parent = work[work.length - 1][0];
          low.set(parent, Math.min(low.get(parent), low.get(node)));
        }
        if (low.get(node) === idx.get(node)) {
          const component = [];
          let w;
          do {
            w = stack.pop();
            onStack.delete(w);
            component.push(w);
          } while (w !== node);
          if (component.length > 1 || (graph.get(node) ?? []).includes(node))
            problems.push(`import cycle (type-only imports included): ${component.sort().join(', ')}`);
        }
      }
    }
  }
}

// Sizes: no room may hold more than its share of the hand-written source.
{
  const perRoom = new Map();
  let total = 0;
  for (const [file, n] of lines) {
    if (GENERATED.some((g) => file.startsWith(g))) continue;
    total += n;
    const room = roomOfPath(file);
    if (room !== undefined) perRoom.set(room, (perRoom.get(room) ?? 0) + n);
  }
  for (const [room, n] of perRoom) {
    if (n > MAX_ROOM_SHARE * total)
      problems.push(
        `${room} holds ${n} of ${total} source lines (${((100 * n) / total).toFixed(1)} %, over ${100 * MAX_ROOM_SHARE} %): split it by concern`,
      );
  }
}

// The documented map.
{
  const short = (p) => p.replace('packages/server/src/', 'server/src/');
  const where = (r) =>
    r.files !== undefined
      ? r.files.map((f) => `\`${short(`packages/server/src/${f}`)}\``).join(', ')
      : `\`${short(r.dir)}\``;
  // Every room of the map, those not made yet included, so the table stays as it is when they land.
  const rows = [...ROOMS]
    .sort((a, b) => b.floor - a.floor || a.name.localeCompare(b.name))
    .map((r) => {
      const imports = r.mayImport.length > 0 ? r.mayImport.join(', ') : '—';
      const why = r.why !== undefined ? `. Why: ${r.why}` : '';
      return `| ${r.floor} | **${r.name}** ${where(r)} | ${r.holds} | ${imports}${why} |`;
    });
  // Formatted as prettier formats the document, so `npm run format:check` and this check agree.
  const options = (await prettier.resolveConfig(path.join(ROOT, DOC))) ?? {};
  const body = await prettier.format(
    ['| floor | room | what it holds | may import |', '| --- | --- | --- | --- |', ...rows].join('\n'),
    { ...options, parser: 'markdown' },
  );
  const table = [DOC_START, '', body.trimEnd(), '', DOC_END].join('\n');
  const docPath = path.join(ROOT, DOC);
  const doc = readFileSync(docPath, 'utf8');
  const a = doc.indexOf(DOC_START);
  const b = doc.indexOf(DOC_END);
  if (a < 0 || b < 0) problems.push(`${DOC}: no generated room table (markers missing)`);
  else {
    const current = doc.slice(a, b + DOC_END.length);
    if (process.argv.includes('--write')) {
      if (current !== table) writeFileSync(docPath, doc.slice(0, a) + table + doc.slice(b + DOC_END.length));
    } else if (current !== table)
      problems.push(
        `${DOC}: the room table differs from scripts/rooms.mjs (run \`node scripts/check-rooms.mjs --write\`)`,
      );
  }
}

if (problems.length > 0) {
  for (const p of problems) console.error(p);
  console.error(`\n${problems.length} problem(s) with the room map (scripts/rooms.mjs)`);
  process.exit(1);
}
console.log(`rooms: ${files.length} files in ${ROOMS.length} rooms, no cycle, every import down the map`);
