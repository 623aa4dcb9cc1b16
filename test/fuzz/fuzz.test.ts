import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { csvInput } from './csvInputs.js';
import { jsonlInput } from './jsonlInputs.js';
import { breach, type FuzzInput, inputFile, tryInput } from './tryInput.js';
import { keepFind, startWatchdog } from './watchdog.js';
import { xlsxBytes, xlsxInput } from './xlsxInputs.js';

/**
 * Generated and damaged files through `validate`: each must end in exit 0, 1 or 2 with the tool's own sentence,
 * within the time and memory bounds, its results naming each line once. `npm test` runs fixed seeds, so a failure here
 * is the same failure on every machine; `npm run fuzz` (FUZZ_MINUTES set) runs new seeds until the time is up, with
 * the bigger sizes. An input that breaks the contract is kept in fuzz-finds/ to become a fixture under
 * test/fixtures/fuzz/ (regressions.test.ts reads them all).
 */
const minutes = Number(process.env.FUZZ_MINUTES ?? 0);
const open = minutes > 0;
const FINDS = join(process.cwd(), 'fuzz-finds');
if (open) mkdirSync(FINDS, { recursive: true });
const watchdog = startWatchdog(FINDS);
const scratch = join(tmpdir(), `payer-onboard-fuzz-${process.pid}`);
afterAll(async () => {
  await watchdog.stop();
  rmSync(scratch, { recursive: true, force: true });
});

/** Sizes: a field of up to 200 KB and 500 sparse rows in `npm test`; 5 MB and 20,000 rows open-ended. */
const size = open ? { huge: 5_000_000, changes: 8, wide: 20_000 } : { huge: 200_000, changes: 4, wide: 500 };

let tried = 0;
/** Open-ended, a find is kept and the run goes on: ten minutes should show every way in, not the first. */
const found: string[] = [];
async function holds(input: FuzzInput): Promise<void> {
  try {
    await tryOne(input);
  } catch (error) {
    if (!open) throw error;
    found.push(String(error));
    process.stdout.write(`fuzz: ${String(error)}\n`);
  }
}

async function tryOne(input: FuzzInput): Promise<void> {
  const dir = join(scratch, String(tried++));
  const file = inputFile(input, dir);
  try {
    watchdog.watch(file);
    const outcome = await tryInput(file, dir);
    const why = breach(outcome, watchdog.done());
    if (why !== undefined) throw new Error(`${why} (kept as ${keepFind(FINDS, file, why)})`);
  } catch (error) {
    watchdog.done();
    if (error instanceof Error && error.message.includes('(kept as ')) throw error;
    throw new Error(`threw ${String(error)} (kept as ${keepFind(FINDS, file, 'threw')})`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A failure in a few lines: the seed and path that replay it, and what broke (the input itself is in fuzz-finds/). */
const briefly = {
  reporter: (run: fc.RunDetails<unknown>) => {
    if (run.failed) throw new Error(`seed ${run.seed}, path ${run.counterexamplePath}: ${String(run.errorInstance)}`);
  },
};

const kinds = {
  csv: fc.asyncProperty(csvInput(size), holds),
  jsonl: fc.asyncProperty(jsonlInput(size), holds),
  xlsx: fc.asyncProperty(xlsxInput(size), async (spec) => holds(await xlsxBytes(spec))),
};

/** Fixed seeds and counts: about 5 s of `npm test` on a 2-core machine, the three kinds together. */
const FIXED = { csv: { seed: 41, numRuns: 160 }, jsonl: { seed: 42, numRuns: 160 }, xlsx: { seed: 43, numRuns: 100 } };

describe.sequential('fuzzing the readers', () => {
  for (const [kind, property] of Object.entries(kinds) as Array<[keyof typeof kinds, fc.IAsyncProperty<unknown>]>) {
    it.skipIf(open)(
      `${kind}: fixed seeds`,
      async () => {
        await fc.assert(property, { ...FIXED[kind], endOnFailure: true, ...briefly });
      },
      120_000,
    );
  }

  it.runIf(open)(
    'open-ended: new seeds until the time is up',
    async () => {
      const until = Date.now() + minutes * 60_000;
      let round = 0;
      while (Date.now() < until) {
        const kind = (['csv', 'jsonl', 'xlsx'] as const)[round++ % 3]!;
        const runs = { numRuns: 200, endOnFailure: true, ...briefly };
        await fc.assert(kinds[kind] as fc.IAsyncProperty<unknown>, runs);
        // Read by scripts/fuzz.mjs, which adds up its processes' counts.
        writeFileSync(join(FINDS, `.tried-${process.pid}`), String(tried));
      }
      expect(found, `${found.length} finds in ${tried} inputs`).toEqual([]);
    },
    0,
  );
});
