import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli } from '../../src/cli.js';
import { readOwnCsv } from '../../src/output/readOwnCsv.js';

/** What `payer-onboard validate FILE` made of one input, as a person at a terminal would see it. */
export interface Outcome {
  exitCode: number;
  /** What the command wrote to stderr (its one sentence when the file cannot be used). */
  said: string;
  ms: number;
  /** results.csv's rows: where each came from (`source`, `line`) and its `error`. */
  results: Array<Record<string, string>>;
}

/** An input the fuzz suite generated, and the type its name gives it (the readers choose by extension, then content). */
export interface FuzzInput {
  ext: 'csv' | 'tsv' | 'txt' | 'jsonl' | 'xlsx';
  bytes: Uint8Array;
}

/** The bounds every file must be read within, whatever it holds. */
export const BOUNDS = { ms: 20_000, mb: 300 } as const;

/** Node's decoders' own words, and what a stack trace looks like: never a person's to read. */
const RAW = [
  /The encoded data was not valid/i,
  /\bat [\w$.<>]+ \(.*:\d+:\d+\)/,
  /Maximum call stack/i,
  /out of bounds/i,
  /Cannot read propert/i,
  /is not a function/i,
  /\bundefined\b|\bNaN\b/,
  /\bERR_[A-Z_]+\b/,
];

/** Writes the input into `dir` (made if need be) as the file a person would give: `input.<ext>`. */
export function inputFile(input: FuzzInput, dir: string): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `input.${input.ext}`);
  writeFileSync(file, input.bytes);
  return file;
}

/**
 * Runs `validate` on the file in this process, the way the bin does (`cli()` with the bin's arguments), its outputs
 * in `dir/out`, removed afterwards. An error the CLI does not turn into an exit code is thrown: that is a find too.
 */
export async function tryInput(file: string, dir: string): Promise<Outcome> {
  const out = join(dir, 'out');
  const said: string[] = [];
  const sink = { write: (s: string) => said.push(String(s)) > 0, isTTY: false } as unknown as NodeJS.WritableStream;
  const started = performance.now();
  try {
    const exitCode = await cli(['validate', file, '--out', out, '--no-progress'], {
      stdout: sink,
      stderr: sink,
      env: { HOME: dir, PATH: process.env.PATH },
      cwd: dir,
      signal: new AbortController().signal,
    });
    const ms = performance.now() - started;
    return { exitCode, said: said.join(''), ms, results: await resultsIn(out) };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

async function resultsIn(out: string): Promise<Outcome['results']> {
  if (!existsSync(out)) return [];
  const found = readdirSync(out, { recursive: true, encoding: 'utf8' }).find((name) => name.endsWith('results.csv'));
  if (found === undefined) return [];
  const rows: Outcome['results'] = [];
  for await (const row of readOwnCsv(join(out, found))) rows.push(row);
  return rows;
}

/** Why an outcome breaks the contract (an exit other than 0, 1 or 2, raw text, too slow), or undefined when it keeps it. */
export function breach(outcome: Outcome, mb = 0): string | undefined {
  if (mb > BOUNDS.mb) return `held ${mb} MB`;
  if (![0, 1, 2].includes(outcome.exitCode)) return `exit ${outcome.exitCode}: ${outcome.said.slice(0, 300)}`;
  if (outcome.ms > BOUNDS.ms) return `took ${Math.round(outcome.ms)} ms`;
  // The tool's own sentences start with its name; the lines before (the columns it read) quote the file's header.
  const sentences = outcome.said.split('\n').filter((line) => line.startsWith('payer-onboard:'));
  if (outcome.exitCode === 2 && sentences.length !== 1)
    return `${sentences.length} sentences: ${outcome.said.slice(-300)}`;
  const texts = [...sentences, ...outcome.results.map((row) => row.error ?? '')];
  for (const text of texts) {
    const raw = RAW.find((pattern) => pattern.test(text));
    if (raw !== undefined) return `raw text (${raw}): ${text.slice(0, 300)}`;
  }
  const seen = new Set<string>();
  for (const { source, line } of outcome.results) {
    if (!/^[1-9]\d*$/.test(line ?? '')) return `results.csv line ${JSON.stringify(line)}`;
    const at = `${source}:${line}`;
    if (seen.has(at)) return `results.csv names ${at} twice`;
    seen.add(at);
  }
  return undefined;
}
