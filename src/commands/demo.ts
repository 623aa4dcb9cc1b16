import { fileURLToPath } from 'node:url';
import { dirname, join, relative } from 'node:path';
import { run } from '../run.js';
import type { CliCommand } from './CliCommand.js';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'fixtures');

/**
 * What `npm start` runs: the bundled example files through `run --sandbox --rate 20` into ./payer-onboard-results/
 * (a rate cap so the rehearsal looks like a real run: the bar moves, the ETA means something).
 * Some of the example rows are invalid on purpose; a completed demo exits 0 so npm prints no error noise.
 */
export const demoCommand: CliCommand = {
  command: 'demo',
  describe: 'run the bundled example payers against the built-in sandbox',
  builder: (yargs) => yargs,
  handler: async (_argv, io) => {
    const inputs = [join(FIXTURES, 'payers.csv'), join(FIXTURES, 'payers.jsonl')];
    io.stderr.write(`demo: onboarding ${inputs.map((p) => relative(io.cwd, p)).join(' and ')} against the built-in sandbox\n`);
    const summary = await run(
      { inputs, sandbox: true, rate: 20, concurrency: 8, stateDir: join(io.cwd, '.payer-onboard') },
      { cwd: io.cwd, env: {}, stderr: io.stderr, signal: io.signal },
    );
    io.stderr.write(
      `\ndemo finished: results in ${relative(io.cwd, summary.outputs.dir) || '.'}/ ` +
        `(${summary.outputs.failed.length ? 'the invalid rows are on purpose: see the failed-*.csv file, fix it and run it with `npx payer-onboard run <file> --sandbox`' : 'every row ok'})\n`,
    );
    return summary.exitCode === 3 ? 3 : 0;
  },
};
