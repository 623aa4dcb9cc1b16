import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';

const fixture = (name: string) => readFileSync(new URL(`../../fixtures/${name}`, import.meta.url), 'utf8');

/** The sample files' payers, the inputs the fuzz suite starts from: a header and its rows, as texts. */
export const CSV_SEED: { header: string[]; rows: string[][] } = (() => {
  const [header, ...rows] = parse(fixture('payers.csv'), { relax_column_count: true }) as string[][];
  return { header: header!, rows };
})();

/** The sample JSON lines' payers, each as its object (a bank account nested, or several in a list); its broken line left out. */
export const JSONL_SEED: Array<Record<string, unknown>> = fixture('payers.jsonl')
  .split('\n')
  .flatMap((line) => {
    try {
      return [JSON.parse(line) as Record<string, unknown>];
    } catch {
      return [];
    }
  });
