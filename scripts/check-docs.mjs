#!/usr/bin/env node
// Keeps the written map true: every document the code and the docs point at is in the
// repository. Fails (exit 1, one line per problem) when
// - a file cites the old outside design document (its section-sign references),
// - a Markdown link to a file of the repository, or a `docs/….md` path named in code or text,
//   leads to no file, or its `#anchor` to no heading of that file,
// - a setting the server reads (packages/server/src/config/env.ts) is missing from
//   docs/configuration.md, the full configuration reference.
// Run by `npm run lint`; usage: node scripts/check-docs.mjs
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const SCAN = ['README.md', 'docs', 'packages', 'bench', 'examples', 'scripts'];
const SKIP_DIRS = new Set(['node_modules', 'dist', '.git', 'results', 'data']);
const EXTENSIONS = ['.md', '.ts', '.tsx', '.mjs', '.js', '.json', '.sql'];
// Built from parts so this file does not match itself.
const OUTSIDE_CITATION = new RegExp(['DESIGN', '(?:\\.md|\\s*§)'].join(''));
const OUTSIDE_DOCS = new RegExp(['(?:reference|spec)/', '[a-z-]+\\.md'].join(''));

function walk(rel, out) {
  const full = path.join(root, rel);
  if (!existsSync(full)) return out;
  if (statSync(full).isDirectory()) {
    for (const entry of readdirSync(full)) if (!SKIP_DIRS.has(entry)) walk(path.join(rel, entry), out);
  } else if (EXTENSIONS.some((ext) => rel.endsWith(ext)) && !rel.endsWith('package-lock.json')) {
    out.push(rel);
  }
  return out;
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchorsOf(markdown) {
  const anchors = new Set();
  const seen = new Map();
  let fence = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fence = !fence;
    if (fence) continue;
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const text = heading[1]
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/<[^>]+>/g, '')
      .toLowerCase();
    const base = text
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .trim()
      .replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  // Explicit anchors: <a id="…"> / <a name="…">.
  for (const m of markdown.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(m[1]);
  return anchors;
}

const anchorCache = new Map();
function anchorsOfFile(rel) {
  if (!anchorCache.has(rel)) anchorCache.set(rel, anchorsOf(readFileSync(path.join(root, rel), 'utf8')));
  return anchorCache.get(rel);
}

const problems = [];
function checkTarget(from, line, targetRel, anchor, shown) {
  const full = path.join(root, targetRel);
  if (targetRel.startsWith('..') || !existsSync(full)) {
    problems.push(`${from}:${line}: ${shown} leads to no file of the repository`);
    return;
  }
  if (anchor === undefined || anchor === '') return;
  if (!targetRel.endsWith('.md') || statSync(full).isDirectory()) return;
  if (!anchorsOfFile(targetRel).has(decodeURIComponent(anchor))) {
    problems.push(`${from}:${line}: ${shown}: ${targetRel} has no heading with the anchor #${anchor}`);
  }
}

function lineOf(text, index) {
  let line = 1;
  for (let i = 0; i < index; i += 1) if (text.charCodeAt(i) === 10) line += 1;
  return line;
}

const self = path.relative(root, new URL(import.meta.url).pathname);
const files = SCAN.flatMap((rel) => walk(rel, []));
for (const rel of files) {
  if (rel === self) continue;
  const text = readFileSync(path.join(root, rel), 'utf8');
  for (const [i, line] of text.split('\n').entries()) {
    if (OUTSIDE_CITATION.test(line) || OUTSIDE_DOCS.test(line)) {
      problems.push(`${rel}:${i + 1}: cites a document that is not in the repository: ${line.trim()}`);
    }
  }
  const dir = path.dirname(rel);
  if (rel.endsWith('.md')) {
    // Markdown links and images: [text](target) and [text](target "title"), outside code.
    const prose = text.replace(/```[\s\S]*?```/g, (block) => block.replace(/[^\n]/g, ' '));
    for (const m of prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      const target = m[1];
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) continue;
      const [file, anchor] = target.split('#', 2);
      const targetRel = file === '' ? rel : path.normalize(path.join(dir, file));
      checkTarget(rel, lineOf(prose, m.index), targetRel, anchor, `link ${target}`);
    }
  }
  // A docs path named in code or prose (`see docs/design/runs.md#signals`), from the root.
  for (const m of text.matchAll(/(?<![\w./-])docs\/[\w./-]*?\.md(?:#([\w-]+))?/g)) {
    const [file] = m[0].split('#', 1);
    checkTarget(rel, lineOf(text, m.index), file, m[1], m[0]);
  }
}

// Every setting the server reads is in the full configuration reference.
const reference = readFileSync(path.join(root, 'docs/configuration.md'), 'utf8');
const envSource = readFileSync(path.join(root, 'packages/server/src/config/env.ts'), 'utf8');
for (const m of envSource.matchAll(/name: '(BATON_[A-Z0-9_]+)'/g)) {
  if (!reference.includes(`\`${m[1]}\``)) {
    problems.push(`docs/configuration.md: the setting ${m[1]} (config/env.ts) is not described`);
  }
}

if (problems.length > 0) {
  for (const problem of problems) console.error(problem);
  console.error(`check-docs: ${problems.length} problem(s) in ${files.length} files`);
  process.exit(1);
}
console.log(`check-docs: ${files.length} files, every reference inside the repository resolves`);
