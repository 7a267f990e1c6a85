import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';

import type { Command, Option } from 'commander';

import { buildProgram } from '../src/program.js';
import { runCli } from './helpers/cli.js';

/**
 * A sweep over the whole command tree: every command's help shows each of its options once,
 * and every option of every command reaches that command, written after the command name as
 * people write it. Nothing global may shadow a command's own option (`start --version 1` once
 * printed baton's version and started nothing).
 */

/** Every command under the root, with its name path (`['start']`). */
function commandsOf(root: Command): Array<{ path: string[]; command: Command }> {
  const out: Array<{ path: string[]; command: Command }> = [];
  const walk = (cmd: Command, path: string[]): void => {
    for (const sub of cmd.commands) {
      out.push({ path: [...path, sub.name()], command: sub });
      walk(sub, [...path, sub.name()]);
    }
  };
  walk(root, []);
  return out;
}

/** A value the option accepts: its first choice, a number for numeric ones, else text. */
function sampleValue(option: Option): string {
  if (option.argChoices && option.argChoices.length > 0) return option.argChoices[0]!;
  if (/<(n|seconds)>/.test(option.flags)) return '7';
  return 'sample';
}

/** Parses `args` with every action replaced by one that records the options it got. */
async function parsed(
  args: string[],
): Promise<{ command: string; opts: Record<string, unknown> } | undefined> {
  const program = buildProgram();
  program.configureOutput({ writeOut: () => {}, writeErr: () => {}, outputError: () => {} });
  let seen: { command: string; opts: Record<string, unknown> } | undefined;
  for (const { command } of commandsOf(program)) {
    command.configureOutput({ writeOut: () => {}, writeErr: () => {}, outputError: () => {} });
    command.action((...args: unknown[]) => {
      const cmd = args.at(-1) as Command;
      seen = { command: cmd.name(), opts: cmd.opts() };
    });
  }
  program.action(() => {
    seen = { command: 'baton', opts: program.opts() };
  });
  await program.parseAsync(args, { from: 'user' });
  return seen;
}

describe('every command and option of the CLI', () => {
  const commands = commandsOf(buildProgram());

  it('has the commands people reach for', () => {
    const names = commands.map((c) => c.path.join(' '));
    for (const name of ['server', 'apply', 'start', 'runs', 'show', 'queues', 'test', 'validate'])
      assert.ok(names.includes(name), `${name} is missing`);
  });

  for (const { path, command } of commands) {
    const name = path.join(' ');
    it(`${name}: every option reaches the command, written after its name`, async () => {
      const operands = command.registeredArguments.map(() => 'x');
      const required = command.options
        .filter((o) => o.mandatory)
        .flatMap((o) => [o.long ?? o.short!, sampleValue(o)]);
      for (const option of command.options) {
        const flag = option.long ?? option.short!;
        const value = option.required || option.optional ? sampleValue(option) : undefined;
        const args = [...path, ...operands, ...(option.mandatory ? [] : required), flag];
        if (value !== undefined) args.push(value);
        const got = await parsed(args);
        assert.ok(got, `${args.join(' ')}: no command ran (a global option took over?)`);
        assert.equal(got.command, command.name(), `${args.join(' ')} ran ${got.command}`);
        const key = option.attributeName();
        const expected =
          value === undefined ? true : /<(n|seconds)>/.test(option.flags) ? Number(value) : value;
        const actual = got.opts[key];
        assert.deepEqual(
          Array.isArray(actual) ? actual[0] : actual,
          expected,
          `${args.join(' ')}: ${key} is ${JSON.stringify(actual)}`,
        );
      }
    });
  }

  it("start --version 1 is the definition version, not baton's own", async () => {
    const got = await parsed(['start', 'hello', '--version', '1']);
    assert.equal(got?.command, 'start');
    assert.equal(got?.opts.version, 1);
  });

  it('--server and --json work before the command name too', async () => {
    const got = await parsed(['--json', '-s', 'http://h:1', 'runs']);
    assert.equal(got?.command, 'runs');
    // The root's options are the command's globals (optsWithGlobals), not its own.
  });

  it('every help page (real bin) lists each option once and says each default once', async () => {
    const pages = [[], ...commands.map((c) => c.path)];
    const results = await Promise.all(pages.map((p) => runCli([...p, '--help'])));
    for (const [i, r] of results.entries()) {
      const page = pages[i]!.join(' ') || 'baton';
      assert.equal(r.code, 0, `${page} --help: ${r.stderr}`);
      assert.doesNotMatch(r.stdout, /\(default[^)]*\)[^\n]*\(default/, `${page}: a default said twice`);
      const command = i === 0 ? buildProgram() : commands[i - 1]!.command;
      for (const option of command.options) {
        const flag = option.long ?? option.short!;
        const count = r.stdout
          .split('\n')
          .filter((line) => line.includes(`${flag} `) || line.endsWith(flag)).length;
        assert.ok(count >= 1, `${page} --help does not list ${flag}`);
      }
    }
  });

  it('commands that run on this machine take no --server (it would be ignored), and server no --json', () => {
    const byName = new Map(commands.map((c) => [c.path.join(' '), c.command]));
    for (const name of ['server', 'migrate', 'backup']) {
      const flags = byName.get(name)?.options.map((o) => o.long) ?? [];
      assert.ok(!flags.includes('--server'), `${name} takes --server`);
    }
    assert.ok(!(byName.get('server')?.options.map((o) => o.long) ?? []).includes('--json'));
    for (const name of ['migrate', 'backup', 'runs', 'start'])
      assert.ok(
        byName.get(name)?.options.some((o) => o.long === '--json'),
        `${name} lacks --json`,
      );
  });

  it('migrate --json answers JSON', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'baton-migrate-json-'));
    try {
      const r = await runCli(['migrate', '--json'], { env: { BATON_DATA_DIR: dataDir } });
      assert.equal(r.code, 0, r.stderr);
      assert.match((JSON.parse(r.stdout) as { migrated: string }).migrated, /SQLite/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('baton --version prints the version and nothing starts', async () => {
    const r = await runCli(['--version']);
    assert.equal(r.code, 0);
    assert.match(r.stdout, /^\d+\.\d+\.\d+\n$/);
  });
});
