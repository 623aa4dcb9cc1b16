import { shownDefault } from './yargsFlags.js';
import { INBOX_OPTIONS } from './inboxOptions.js';
import type { OptionDef } from './OptionDef.js';
import { RUN_OPTIONS, runOptionNames } from './runOptions.js';
import { SANDBOX_OPTIONS } from './sandboxOptions.js';
import { SERVE_OPTIONS } from './serveOptions.js';
import { STORE_OPTIONS } from './storeOptions.js';
import { TEMPLATE_OPTIONS } from './templateOptions.js';

// The option tables rendered as the README's options tables, from the same OptionDef that `--help` shows
// (addOptions in CliCommand.ts), so the two say the same thing. Only `npm run docs` and its test load this.

const code = (text: string): string => `\`${text}\``;

/** The option column: `--flag VALUE`, the `--no-` form of a boolean that can be on without it, and the variable. */
function optionCell(def: OptionDef): string {
  const cells = [code(def.value ? `--${def.flag} ${def.value}` : `--${def.flag}`)];
  if (def.type === 'boolean' && shownDefault(def) !== false) cells.push(code(`--no-${def.flag}`));
  if (def.env) cells.push(code(def.env));
  return cells.join(' / ');
}

function defaultCell(def: OptionDef): string {
  if (def.defaultText) return def.defaultText;
  const shown = shownDefault(def);
  if (shown === undefined) return 'none';
  if (typeof shown === 'boolean') return shown ? 'on' : 'off';
  return code(String(shown));
}

/** A markdown table of options, one row each, columns padded as the README's other tables are. */
function optionsMarkdown<T extends Record<string, OptionDef>>(
  table: T,
  names: ReadonlyArray<keyof T & string> = Object.keys(table),
): string {
  // A `|` ends a cell even inside backticks.
  const rows = names.map((name) => {
    const def = table[name]!;
    return [optionCell(def), defaultCell(def), def.describe].map((cell) => cell.replace(/\|/g, '\\|'));
  });
  const header = ['option', 'default', 'meaning'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((cell, i) => cell.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

/** A sentence's list of flags: `--a`, `--b` and `--c`. */
function flagList(defs: OptionDef[]): string {
  const flags = defs.map((def) => code(`--${def.flag}`));
  return flags.length < 2 ? flags.join('') : `${flags.slice(0, -1).join(', ')} and ${flags.at(-1)}`;
}

/**
 * What goes between `<!-- options:NAME -->` and `<!-- /options:NAME -->` in the README, written from the option
 * tables: `npm run docs` puts it there, and a test fails when the README says anything else.
 */
export const README_BLOCKS: Record<string, () => string> = {
  run: () => optionsMarkdown(RUN_OPTIONS, runOptionNames('run')),
  validate: () =>
    `\`validate\` takes only ${flagList(runOptionNames('validate').map((name) => RUN_OPTIONS[name]))} of them.`,
  inbox: () =>
    `${optionsMarkdown(INBOX_OPTIONS)}\n\nIt takes these options of \`run\` too: ${flagList(runOptionNames('inbox').map((name) => RUN_OPTIONS[name]))}.`,
  serve: () =>
    `${optionsMarkdown(SERVE_OPTIONS)}\n\nIt takes these options of \`run\` too: ${flagList(runOptionNames('inbox').map((name) => RUN_OPTIONS[name]))}.`,
  status: () => {
    const own = runOptionNames('status').filter((name) => !runOptionNames('run').includes(name));
    const shared = runOptionNames('status').filter((name) => runOptionNames('run').includes(name));
    return `${optionsMarkdown(RUN_OPTIONS, own)}\n\nIt takes these options of \`run\` too: ${flagList(shared.map((name) => RUN_OPTIONS[name]))}.`;
  },
  sandbox: () => optionsMarkdown(SANDBOX_OPTIONS),
  store: () => optionsMarkdown(STORE_OPTIONS),
  template: () => optionsMarkdown(TEMPLATE_OPTIONS),
};

const BLOCK = /<!-- options:([\w-]+) -->\n[\s\S]*?<!-- \/options:\1 -->/g;

/** The README with every options block written afresh; throws for a block missing or unknown. */
export function updateReadme(readme: string): string {
  const seen = new Set<string>();
  const updated = readme.replace(BLOCK, (_whole, name: string) => {
    const render = README_BLOCKS[name];
    if (!render) throw new Error(`README: no options table called "${name}"`);
    seen.add(name);
    return `<!-- options:${name} -->\n\n${render()}\n\n<!-- /options:${name} -->`;
  });
  const missing = Object.keys(README_BLOCKS).filter((name) => !seen.has(name));
  if (missing.length > 0)
    throw new Error(`README: no <!-- options:NAME --> ... <!-- /options:NAME --> block for ${missing.join(', ')}`);
  return updated;
}
