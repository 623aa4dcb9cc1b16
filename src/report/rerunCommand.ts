import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { RUN_DEFAULTS, type RunOptions } from '../options/resolve.js';
import { RUN_OPTIONS, runOptionNames, type RunOptionName } from '../options/runOptions.js';

// What a run of the failed file needs again to be this run's twin: the same reading of cells, the same calls, the
// same journal (so nothing is sent twice for rows done since) and the same pace. Nothing about this run's own files
// (inputs, --bank-details, --out, the log), and never the key: it is no option, and a report is no place for it.
// Nor --agreement-signed-elsewhere: a statement about the payers of a file, which a person makes afresh or not for
// the rows they fixed (the signatures of payers it registered are in the store already).
const CARRIED: readonly RunOptionName[] = [
  'map',
  'splitName',
  'dateFormat',
  'steps',
  'compliancePath',
  'stateDir',
  'databaseUrlFile',
  'allowHttp',
  'concurrency',
  'rate',
  'retries',
  'timeout',
  'maxWait',
  'maxConsecutiveFailures',
  'maxBlockWait',
];
/** Where the journal is: paths, and nothing a run in a sandbox of its own carries. */
const PATHS: ReadonlySet<RunOptionName> = new Set(['stateDir', 'databaseUrlFile']);

const asText = (value: unknown) => (Array.isArray(value) ? value.join(',') : String(value));

/**
 * This run's options that differ from their defaults, as command-line words for a run of its failed file: paths made
 * absolute, so the command works from any folder, every other value as it was given. `sandboxed`: the run went to a
 * sandbox that is gone now (`--sandbox`, or the demo's), so the command runs in a sandbox of its own.
 */
export function rerunOptions(
  command: 'run' | 'validate',
  options: RunOptions,
  cwd: string,
  sandboxed: boolean,
): string[] {
  const taken: readonly RunOptionName[] = runOptionNames(command);
  // A sandbox keeps no journal worth keeping: its payers die with it, so a store would mean nothing to the next.
  const carried = CARRIED.filter((name) => taken.includes(name) && !(sandboxed && PATHS.has(name)));
  return carried.flatMap((name) => {
    const value = options[name];
    if (value === undefined || asText(value) === asText(RUN_DEFAULTS[name])) return [];
    const flag = RUN_OPTIONS[name].flag;
    if (typeof value === 'boolean') return [value ? `--${flag}` : `--no-${flag}`];
    const text = asText(value);
    return [`--${flag}`, PATHS.has(name) || (name === 'map' && isMapFile(text, cwd)) ? resolve(cwd, text) : text];
  });
}

/**
 * Whether `--map` named a file: it does whenever a file of that name exists, as its reader decides; otherwise the
 * value is the map itself (`Type=beneficiaryType`, or JSON), which is no path.
 */
function isMapFile(given: string, cwd: string): boolean {
  return existsSync(resolve(cwd, given));
}

/** Words as a POSIX shell reads them back: plain where safe, else in single quotes. */
export function commandLine(words: readonly string[]): string {
  return words.map((word) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`)).join(' ');
}
