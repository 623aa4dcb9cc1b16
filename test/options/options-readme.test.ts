import { readdirSync, readFileSync } from 'node:fs';
import { PassThrough, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cli, commands } from '../../src/cli.js';
import { README_BLOCKS, README_TABLES, updateDocs } from '../../src/options/readmeTables.js';
import { INBOX_OPTIONS } from '../../src/options/inboxOptions.js';
import { RUN_CHECKS, resolveRunOptions } from '../../src/options/resolve.js';
import { RUN_OPTIONS } from '../../src/options/runOptions.js';
import { resolveSandboxOptions, SANDBOX_OPTIONS } from '../../src/options/sandboxOptions.js';
import { COMPLIANCE_PATHS } from '../../src/core/schemas.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
// The docs: README.md and the guides in docs/, where each command's options table is in its guide.
const DOCS = [
  'README.md',
  ...readdirSync(new URL('../../docs/', import.meta.url))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
].map((path) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8'));
const README = DOCS.join('\n');

/** The README's options blocks by name, as written between the markers (the generator not involved). */
function readmeBlocks(text: string): Map<string, string> {
  const blocks = new Map<string, string>();
  for (const m of text.matchAll(/<!-- options:([\w-]+) -->\n([\s\S]*?)<!-- \/options:\1 -->/g)) {
    blocks.set(m[1]!, m[2]!.trim());
  }
  return blocks;
}

/**
 * The flags a block documents, read as a person would: the option column of each table row, and every flag a line
 * outside the table names (validate and inbox list the run options they take). `--no-x` beside `--x` is one flag.
 */
function documentedFlags(block: string): string[] {
  const flags: string[] = [];
  for (const line of block.split('\n')) {
    if (/^\| (option|-)/.test(line)) continue;
    const text = line.startsWith('|') ? (line.split(/(?<!\\)\|/)[1] ?? '') : line;
    for (const m of text.matchAll(/`--([a-z0-9-]+)/g)) flags.push(m[1]!);
  }
  return [...new Set(flags.filter((f) => !(f.startsWith('no-') && flags.includes(f.slice(3)))))].sort();
}

/** The flags `payer-onboard <command> --help` lists, through cli() as the bin runs it. */
async function helpFlags(command: string): Promise<string[]> {
  let out = '';
  const stdout = new Writable({
    write(chunk, _encoding, done) {
      out += String(chunk);
      done();
    },
  });
  const stderr = new PassThrough();
  stderr.resume();
  const code = await cli([command, '--help'], {
    stdout,
    stderr,
    env: {},
    cwd: ROOT,
    signal: new AbortController().signal,
  });
  expect(code).toBe(0);
  // The Options section runs to the next blank line (Examples follow). An option's line starts `  --flag`; a
  // description's wrapped lines are indented further.
  const section = out.match(/(?:^|\n)Options:\n([\s\S]*?)(?:\n\n|$)/)?.[1];
  expect(section, `${command} --help has no Options section`).toBeDefined();
  const flags = [...section!.matchAll(/^ {2}--([a-z0-9-]+)/gm)].map((m) => m[1]!);
  // --help and --version are every command's, and the README says so once, below the tables.
  return flags.filter((flag) => flag !== 'help' && flag !== 'version').sort();
}

const commandNames = commands.map((c) => c.command.split(' ')[0]!);

describe('the README options tables', () => {
  it.each(Object.keys(README_BLOCKS))('options:%s is what the option tables write (else: npm run docs)', (name) => {
    expect(readmeBlocks(README).get(name), `README.md has no <!-- options:${name} --> block`).toBeDefined();
    expect(readmeBlocks(README).get(name), `README.md options:${name} is stale: run npm run docs`).toBe(
      README_BLOCKS[name]!(),
    );
  });

  it.each(Object.keys(README_TABLES))('table:%s is what the checks check by (else: npm run docs)', (name) => {
    const block = README.match(new RegExp(`<!-- table:${name} -->\\n([\\s\\S]*?)<!-- \\/table:${name} -->`))?.[1];
    expect(block, `README.md has no <!-- table:${name} --> block`).toBeDefined();
    expect(block!.trim(), `README.md table:${name} is stale: run npm run docs`).toBe(README_TABLES[name]!());
  });

  it('rewriting the docs changes nothing', () => {
    expect(
      updateDocs(DOCS).every((text, i) => text === DOCS[i]),
      'the docs are stale: run npm run docs',
    ).toBe(true);
  });

  it.each(commandNames)('`%s --help` and the README document the same flags', async (name) => {
    const help = await helpFlags(name);
    const block = readmeBlocks(README).get(name);
    if (help.length === 0) {
      expect(block, `${name} takes no options: the README has no table for it`).toBeUndefined();
      return;
    }
    expect(block, `${name} takes options: the README needs an <!-- options:${name} --> block`).toBeDefined();
    expect(documentedFlags(block!)).toEqual(help);
  });

  it('every README block belongs to a command', () => {
    expect([...readmeBlocks(README).keys()].filter((name) => !commandNames.includes(name))).toEqual([]);
  });
});

describe('defaults come from the option tables', () => {
  it('every default of run, inbox and sandbox passes its own check', () => {
    for (const [name, def] of Object.entries(RUN_OPTIONS)) {
      const check = RUN_CHECKS[name as keyof typeof RUN_CHECKS];
      if ('default' in def) expect(check.safeParse(def.default).success, name).toBe(true);
      if ('choices' in def) for (const choice of def.choices) expect(check.safeParse(choice).success, name).toBe(true);
    }
    expect([...RUN_OPTIONS.compliancePath.choices]).toEqual([...COMPLIANCE_PATHS]);
    for (const [name, def] of Object.entries(SANDBOX_OPTIONS)) {
      if ('default' in def) expect(def.schema.safeParse(def.default).success, name).toBe(true);
      if ('cliDefault' in def) expect(def.schema.safeParse(def.cliDefault).success, name).toBe(true);
    }
    expect(INBOX_OPTIONS.settle.default).toBeGreaterThanOrEqual(0);
  });

  it('a run() caller who leaves an option out gets the table default, one without a default nothing', () => {
    const resolved = resolveRunOptions({ inputs: ['payers.csv'] }) as Record<string, unknown>;
    for (const [name, def] of Object.entries(RUN_OPTIONS)) {
      const check = RUN_CHECKS[name as keyof typeof RUN_CHECKS];
      expect(resolved[name], name).toEqual('default' in def ? check.parse(def.default) : undefined);
    }
  });

  it('the environment fills an option the caller left out, and a given value wins', () => {
    const env = { PAYER_ONBOARD_RATE: '7', PAYER_ONBOARD_CONCURRENCY: '3' };
    expect(resolveRunOptions({ inputs: ['payers.csv'] }, env)).toMatchObject({ rate: 7, concurrency: 3 });
    expect(resolveRunOptions({ inputs: ['payers.csv'], rate: 2 }, env)).toMatchObject({ rate: 2, concurrency: 3 });
  });

  it('a startSandbox() caller who leaves an option out gets the table default', () => {
    const resolved = resolveSandboxOptions() as Record<string, unknown>;
    for (const [key, def] of Object.entries(SANDBOX_OPTIONS)) {
      expect(resolved[key], key).toEqual('default' in def ? def.default : undefined);
    }
  });
});
