import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

import { parse as parseYaml } from 'yaml';

import { jsonErrorPlace } from './locate.js';
import { UsageError } from './settings.js';

const DEFINITION_FILE = /\.(json|ya?ml)$/i;
/** Files and folders in a directory that are never definitions (a project's own tooling). */
const NOT_DEFINITIONS = /^(package(-lock)?\.json|tsconfig(\..*)?\.json|node_modules|dist)$/;

/** Parses a JSON or YAML file (by its extension), naming the file in any error. */
export function readDocument(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read ${file}: ${(err as Error).message}`);
  }
  if (/\.ya?ml$/i.test(file)) {
    try {
      return parseYaml(text) as unknown;
    } catch (err) {
      // The yaml parser's message already says the line and column.
      throw new UsageError(`${file} is not valid YAML: ${(err as Error).message}`);
    }
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    const message = (err as Error).message;
    const place = jsonErrorPlace(text, message);
    const at = place ? `:${place.line}:${place.column}` : '';
    const where = place ? ` (line ${place.line}, column ${place.column})` : '';
    throw new UsageError(`${file}${at} is not valid JSON${where}: ${message}`);
  }
}

/** Every .json/.yaml/.yml file under the given files or directories, in a stable order. */
export function definitionFiles(paths: string[]): string[] {
  const out: string[] = [];
  const walk = (p: string, explicit: boolean): void => {
    let stat;
    try {
      stat = statSync(p);
    } catch {
      throw new UsageError(`${p} does not exist`);
    }
    if (stat.isDirectory()) {
      for (const entry of readdirSync(p).sort()) {
        if (entry.startsWith('.') || NOT_DEFINITIONS.test(entry)) continue;
        walk(path.join(p, entry), false);
      }
    } else if (explicit || DEFINITION_FILE.test(p)) out.push(p);
  };
  for (const p of paths) walk(p, true);
  return out;
}

/** `--input`: inline JSON, `@file.json` / `@file.yaml`, or `@-` for standard input. */
export function readInput(value: string | undefined): Record<string, unknown> {
  if (value === undefined) return {};
  let parsed: unknown;
  if (value.startsWith('@')) {
    const file = value.slice(1);
    if (file === '-') parsed = parseJson(readFileSync(0, 'utf8'), 'standard input');
    else parsed = readDocument(file);
  } else parsed = parseJson(value, '--input');
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new UsageError('--input must be a JSON object');
  }
  return parsed as Record<string, unknown>;
}

function parseJson(text: string, where: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new UsageError(`${where} is not valid JSON: ${(err as Error).message}`);
  }
}

/** `--since 15m|2h|3d|ISO-date` → epoch ms. */
export function parseSince(value: string, now = Date.now()): number {
  const m = /^(\d+)\s*(s|m|h|d|w)$/.exec(value.trim());
  if (m) {
    const unit = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }[
      m[2] as 's' | 'm' | 'h' | 'd' | 'w'
    ];
    return now - Number(m[1]) * unit;
  }
  const ms = Date.parse(value);
  if (Number.isNaN(ms))
    throw new UsageError(`--since must be like 30m, 2h, 7d or an ISO date, got '${value}'`);
  return ms;
}
