import { readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { breach, type FuzzInput, tryInput } from './tryInput.js';

/**
 * Every input the fuzzers found (test/fixtures/fuzz/, by kind), read again: each once broke a reader, each must now end
 * in exit 0, 1 or 2 with the tool's own sentence, within the bounds. A new find is copied here from fuzz-finds/.
 */
const ROOT = new URL('../fixtures/fuzz/', import.meta.url).pathname;
const files = readdirSync(ROOT, { recursive: true, encoding: 'utf8' }).filter((name) =>
  ['.csv', '.tsv', '.txt', '.jsonl', '.xlsx'].includes(extname(name)),
);
const scratch = join(tmpdir(), `payer-onboard-fuzz-regressions-${process.pid}`);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('what the fuzzers found', () => {
  it('has its finds', () => expect(files.length).toBeGreaterThan(0));

  it.each(files)('%s', async (name) => {
    const ext = extname(name).slice(1) as FuzzInput['ext'];
    const outcome = await tryInput(join(ROOT, name), join(scratch, name.replace(/\W/g, '-')));
    expect(breach(outcome), `${ext}: ${outcome.said.slice(-300)}`).toBeUndefined();
  });
});
