import type { Argv } from 'yargs';
import type { OptionDef } from './OptionDef.js';

// An option table as yargs flags and as `--help` shows them; its table in the docss show the same defaults.

/** Markdown to the plain text of `--help`: the backticks go. */
const plain = (markdown: string): string => markdown.replace(/`/g, '');

/** The default as a person reads it: the CLI's own where it differs, else what the library uses. */
export function shownDefault(def: OptionDef): string | number | boolean | undefined {
  return def.cliDefault ?? def.default;
}

/**
 * Adds a table's options to yargs, all of them or the named ones. The default is only shown, never given to
 * yargs: a flag counts only when it was typed, so the environment and the defaults are merged in one place (the
 * command's resolve function), whoever calls it.
 */
export function addOptions<T extends Record<string, OptionDef>>(
  yargs: Argv,
  table: T,
  names: ReadonlyArray<keyof T & string> = Object.keys(table),
): Argv {
  let y = yargs;
  for (const name of names) {
    const def = table[name]!;
    const shown = shownDefault(def);
    const defaultDescription = shown !== undefined ? String(shown) : def.defaultText && plain(def.defaultText);
    y = y.option(def.flag, {
      type: def.type,
      describe: plain(def.describe) + (def.env ? ` [env: ${def.env}]` : ''),
      ...(defaultDescription ? { defaultDescription } : {}),
      ...(def.choices ? { choices: [...def.choices] } : {}),
    });
  }
  return y;
}
