import { shownDefault } from './yargsFlags.js';
import { DIRECTORY_OPTIONS, FORGET_OPTIONS } from './directoryOptions.js';
import { INBOX_OPTIONS } from './inboxOptions.js';
import type { OptionDef } from './OptionDef.js';
import { RUN_OPTIONS, runOptionNames } from './runOptions.js';
import { SANDBOX_OPTIONS } from './sandboxOptions.js';
import { INVITE_OPTIONS, LINK_OPTIONS, SERVE_OPTIONS } from './serveOptions.js';
import { USERS_OPTIONS } from './usersOptions.js';
import { STORE_OPTIONS } from './storeOptions.js';
import { TEMPLATE_OPTIONS } from './templateOptions.js';
import { BUSINESS_NEEDS, type Corridor, CORRIDORS, POSTCODE_SHAPES, wayText } from '../validate/corridors.js';

// The option tables rendered as the options table in the docss, from the same OptionDef that `--help` shows
// (addOptions in CliCommand.ts), so the two say the same thing; and the rules validation checks by beyond each
// cell's own, from its tables. Only `npm run docs` and its test load this.

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

/** A markdown table of options, one row each. */
function optionsMarkdown<T extends Record<string, OptionDef>>(
  table: T,
  names: ReadonlyArray<keyof T & string> = Object.keys(table),
): string {
  const rows = names.map((name) => {
    const def = table[name]!;
    return [optionCell(def), defaultCell(def), def.describe];
  });
  return markdownTable(['option', 'default', 'meaning'], rows);
}

/** A markdown table, columns padded as the docs' other tables are. */
function markdownTable(header: string[], rows: string[][]): string {
  // A `|` ends a cell even inside backticks.
  const escaped = rows.map((row) => row.map((cell) => cell.replace(/\|/g, '\\|')));
  const widths = header.map((h, i) => Math.max(h.length, ...escaped.map((row) => row[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((cell, i) => cell.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...escaped.map(line)].join('\n');
}

/** The rails a corridor holds for, as a person reads them: a blank cell is `local`. */
function railsCell(rails: Corridor['rails']): string {
  if (rails === undefined) return 'any';
  return rails.map((r) => (r === 'local' ? `${code(r)} or blank` : code(r))).join(', ');
}

/** What `validate` and `run` check a bank account and a payer for beyond each cell's own rule, from corridors.ts. */
function corridorsMarkdown(): string {
  const invalid = 'invalid: nothing of the row is sent';
  const warning = 'sent, with a warning in `error`';
  const rows = [
    ...CORRIDORS.map((c) => [
      `${c.currency.toUpperCase()} bank account`,
      railsCell(c.rails),
      c.ways.map((way) => wayText(way, code)).join(', or '),
      invalid,
    ]),
    ['bank account in any other currency', 'any', 'no rule of its own: the fields every account needs', ''],
    ...BUSINESS_NEEDS.map(({ field, refused }) => ['business payer', '', code(field), refused ? invalid : warning]),
    [
      `payer's ${code('postcode')}, by ${code('country')} (any case)`,
      '',
      `${Object.entries(POSTCODE_SHAPES)
        .map(([country, { example }]) => `${country} ${example.split(' or ').map(code).join(' or ')}`)
        .join(', ')}; any other country: any`,
      warning,
    ],
  ];
  return markdownTable(['what', 'rails', 'needs', 'without it'], rows);
}

/** A sentence's list of flags: `--a`, `--b` and `--c`. */
function flagList(defs: OptionDef[]): string {
  const flags = defs.map((def) => code(`--${def.flag}`));
  return flags.length < 2 ? flags.join('') : `${flags.slice(0, -1).join(', ')} and ${flags.at(-1)}`;
}

/**
 * What goes between `<!-- options:NAME -->` and `<!-- /options:NAME -->` in the docs, written from the option
 * tables: `npm run docs` puts it there, and a test fails when the docs say anything else.
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
  invite: () => optionsMarkdown(INVITE_OPTIONS),
  link: () => optionsMarkdown(LINK_OPTIONS),
  users: () => optionsMarkdown(USERS_OPTIONS),
  sandbox: () => optionsMarkdown(SANDBOX_OPTIONS),
  store: () => optionsMarkdown(STORE_OPTIONS),
  template: () => optionsMarkdown(TEMPLATE_OPTIONS),
  directory: () => optionsMarkdown(DIRECTORY_OPTIONS),
  forget: () => optionsMarkdown(FORGET_OPTIONS),
};

/**
 * What goes between `<!-- table:NAME -->` and `<!-- /table:NAME -->` in the docs: the rules the checks hold,
 * written from the tables they check by.
 */
export const README_TABLES: Record<string, () => string> = {
  corridors: corridorsMarkdown,
};

/**
 * The docs (README.md and the guides in docs/) with every options block and rules table written afresh, each where
 * it is; throws for a block unknown, or missing from all of them.
 */
export function updateDocs(texts: readonly string[]): string[] {
  const seen = new Set<string>();
  const updated = texts.map((text) =>
    rewrite(rewrite(text, 'options', README_BLOCKS, seen), 'table', README_TABLES, seen),
  );
  for (const [kind, blocks] of [
    ['options', README_BLOCKS],
    ['table', README_TABLES],
  ] as const) {
    const missing = Object.keys(blocks).filter((name) => !seen.has(`${kind}:${name}`));
    if (missing.length > 0)
      throw new Error(`docs: no <!-- ${kind}:NAME --> ... <!-- /${kind}:NAME --> block for ${missing.join(', ')}`);
  }
  return updated;
}

function rewrite(text: string, kind: string, blocks: Record<string, () => string>, seen: Set<string>): string {
  const block = new RegExp(`<!-- ${kind}:([\\w-]+) -->\\n[\\s\\S]*?<!-- \\/${kind}:\\1 -->`, 'g');
  return text.replace(block, (_whole, name: string) => {
    const render = blocks[name];
    if (!render) throw new Error(`docs: no ${kind} table called "${name}"`);
    seen.add(`${kind}:${name}`);
    return `<!-- ${kind}:${name} -->\n\n${render()}\n\n<!-- /${kind}:${name} -->`;
  });
}
