// `npm run fuzz [-- --minutes N]`: the fuzz suite (test/fuzz/fuzz.test.ts) with new seeds and the bigger sizes, until
// the time is up (or Ctrl-C), one process per core. An input that holds a process is killed by the suite's watchdog;
// that process is then started again, so a hang costs one input, not the session. Finds are kept in fuzz-finds/; each
// becomes a small file under test/fixtures/fuzz/, which `npm test` reads again.
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { minutes: { type: 'string' }, processes: { type: 'string', default: String(availableParallelism()) } },
});
const minutes = values.minutes === undefined ? Number.POSITIVE_INFINITY : Number(values.minutes);
if (!(minutes > 0)) throw new Error(`--minutes ${values.minutes}: a number of minutes above 0`);
const finds = join(process.cwd(), 'fuzz-finds');
mkdirSync(finds, { recursive: true });
for (const name of readdirSync(finds)) if (name.startsWith('.tried-')) rmSync(join(finds, name));
const started = Date.now();
const until = started + minutes * 60_000;
// Through this Node (npm run puts the project's Node 24 first on the PATH), whatever vitest's shebang finds.
const vitest = join(process.cwd(), 'node_modules', 'vitest', 'vitest.mjs');

/** One process's share: the suite again and again until the time is up, each run told how long it has left. */
async function fuzzer(n) {
  while (Date.now() < until) {
    const left = Math.max(0.1, (until - Date.now()) / 60_000);
    const child = spawn(
      process.execPath,
      [vitest, 'run', '--project', 'unit', 'test/fuzz/fuzz.test.ts', '--reporter=dot'],
      {
        // The bin's own V8 flags (its #! line), so that memory is measured as a command would hold it.
        env: {
          ...process.env,
          NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --max-semi-space-size=4`.trim(),
          FUZZ_MINUTES: Number.isFinite(left) ? left.toFixed(2) : '525600',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    for (const stream of [child.stdout, child.stderr])
      stream.on('data', (chunk) => {
        for (const line of String(chunk).split('\n'))
          if (line.startsWith('fuzz:')) process.stdout.write(`[${n}] ${line}\n`);
      });
    await new Promise((done) => child.on('close', done));
  }
}

const report = setInterval(() => process.stdout.write(`fuzz: ${tried()} inputs in ${seconds()} s\n`), 30_000);
await Promise.all(Array.from({ length: Number(values.processes) }, (_, n) => fuzzer(n)));
clearInterval(report);
const found = readdirSync(finds).filter(
  (name) => !name.startsWith('.') && statSync(join(finds, name)).mtimeMs >= started,
);
process.stdout.write(
  `fuzz: ${tried()} inputs in ${seconds()} s, ${found.length} finds${found.length ? ` in ${finds}` : ''}\n`,
);
process.exitCode = found.length === 0 ? 0 : 1;

function tried() {
  let sum = 0;
  for (const name of readdirSync(finds))
    if (name.startsWith('.tried-')) sum += Number(readFileSync(join(finds, name), 'utf8')) || 0;
  return sum;
}

function seconds() {
  return Math.round((Date.now() - started) / 1000);
}
