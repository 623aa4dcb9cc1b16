// `npm run bench [-- scenario...]`: the product's performance figures and the bar each must meet, measured against
// the sandbox with the product's own bin, printed as a table and written to bench/RESULTS.md. Scenarios run alone
// keep the other scenarios' last figures in RESULTS.md (each with its own date).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import './cliScenarios.js';
import { cpu, newman } from './cpu.js';
import { rateCap } from './rateCap.js';
import { SCENARIOS as OTHERS, type Figure, runEnv } from './scenarios.js';
import { ROOT, SCRATCH } from './spawnCli.js';
import { benchDatabase } from './postgres.js';
import { serveWaiting, serveWaitingPostgres } from './serveWaiting.js';
import { serveCatchUp } from './serveCatchUp.js';
import { payersPage } from './payersPage.js';
import { webhookAttack } from './webhookAttack.js';
import { webhooks } from './webhooks.js';

const SCENARIOS: Record<string, () => Promise<Figure[]>> = {
  ...OTHERS,
  cpu,
  newman,
  'rate-cap': rateCap,
  webhooks,
  'webhook-attack': webhookAttack,
  'serve-waiting': serveWaiting,
  'serve-waiting-postgres': serveWaitingPostgres,
  'serve-catch-up': serveCatchUp,
  'payers-page': payersPage,
};

interface Stored {
  figures: Array<Figure & { at: string }>;
}

const LAST = join(SCRATCH, 'last-results.json');
const RESULTS = join(ROOT, 'bench', 'RESULTS.md');

async function main(): Promise<number> {
  const asked = process.argv.slice(2).filter((a) => !a.startsWith('-'));
  const unknown = asked.filter((name) => !(name in SCENARIOS));
  if (unknown.length > 0) {
    process.stderr.write(
      `bench: unknown scenario ${unknown.join(', ')}; known: ${Object.keys(SCENARIOS).join(', ')}\n`,
    );
    return 2;
  }
  // The PostgreSQL scenario needs a server: in a whole run only when one is given.
  const names =
    asked.length > 0
      ? asked
      : Object.keys(SCENARIOS).filter((name) => name !== 'serve-waiting-postgres' || process.env.BENCH_DATABASE_URL);
  mkdirSync(SCRATCH, { recursive: true });
  const fresh: Array<Figure & { at: string }> = [];
  // BENCH_STORE=postgres: the runs keep their journal in a database of the bench's own on BENCH_DATABASE_URL's
  // server, and the figures go under `<scenario>-postgres` beside the SQLite ones.
  const onPostgres = process.env.BENCH_STORE === 'postgres';
  const database = onPostgres ? await benchDatabase(`BENCH_STORE=postgres`) : undefined;
  Object.assign(runEnv, database?.env ?? {});
  try {
    for (const name of names) {
      const started = performance.now();
      process.stderr.write(`bench: ${name} ...\n`);
      const figures = await SCENARIOS[name]!();
      const at = new Date().toISOString();
      const scenario = (f: Figure) => (onPostgres ? `${f.scenario}-postgres` : f.scenario);
      fresh.push(...figures.map((f) => ({ ...f, scenario: scenario(f), at })));
      process.stderr.write(`bench: ${name} done in ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
    }
  } finally {
    await database?.drop();
  }
  const previous: Stored = existsSync(LAST) ? (JSON.parse(readFileSync(LAST, 'utf8')) as Stored) : { figures: [] };
  const ran = new Set(fresh.map((f) => f.scenario));
  // A scenario this machine's scratch folder has no figures of (a fresh clone, a cleaned scratch) keeps the ones
  // RESULTS.md shows: running one scenario never drops another's.
  const known = new Set(previous.figures.map((f) => f.scenario));
  const shown = existsSync(RESULTS)
    ? figuresIn(readFileSync(RESULTS, 'utf8')).filter((f) => !known.has(f.scenario))
    : [];
  const merged = [...[...previous.figures, ...shown].filter((f) => !ran.has(f.scenario)), ...fresh];
  const order = [
    'latency-bound',
    'baseline',
    'nightly',
    'nightly-postgres',
    'status',
    'rate-cap',
    'rate-bound',
    'rate-limited',
    'faults',
    'webhooks',
    'webhook-attack',
    'serve-waiting',
    'serve-waiting-postgres',
    'serve-catch-up',
    'payers-page',
    'cpu-before',
    'cpu',
    'newman',
    'startup',
    'validate',
    'client-cost',
    'memory',
  ];
  merged.sort((a, b) => order.indexOf(a.scenario) - order.indexOf(b.scenario));
  writeFileSync(LAST, JSON.stringify({ figures: merged }, null, 2));

  process.stdout.write(`${table(fresh)}\n`);
  writeFileSync(RESULTS, markdown(merged));
  process.stderr.write(`bench: wrote ${RESULTS}\n`);
  return fresh.some((f) => f.pass === false) ? 1 : 0;
}

/** The figures of a RESULTS.md table, read back (each value as the table rounded it). */
function figuresIn(markdown: string): Array<Figure & { at: string }> {
  const figures: Array<Figure & { at: string }> = [];
  for (const line of markdown.split('\n')) {
    const cells = line.split(' | ');
    if (cells.length !== 7 || !line.startsWith('| ') || line.startsWith('| scenario |')) continue;
    const [scenario, name, shown, bar, result, note, at] = cells.map((c) => c.replace(/^\| |\s*\|$/g, '').trim());
    const space = shown!.indexOf(' ');
    figures.push({
      scenario: scenario!,
      name: name!,
      value: Number(shown!.slice(0, space).replaceAll(',', '')),
      unit: shown!.slice(space + 1),
      bar: bar === '-' ? '' : bar!,
      pass: result === 'reported' ? undefined : result === 'pass',
      note: note!,
      at: `${at!.replace(' ', 'T')}:00.000Z`,
    });
  }
  return figures;
}

function format(value: number): string {
  if (Number.isInteger(value)) return value.toLocaleString('en-US');
  return Math.abs(value) >= 100 ? value.toFixed(0) : Math.abs(value) >= 10 ? value.toFixed(1) : value.toFixed(2);
}

function verdict(pass: boolean | undefined): string {
  return pass === undefined ? 'reported' : pass ? 'pass' : 'FAIL';
}

function rowsOf(figures: Figure[]): string[][] {
  return figures.map((f) => [f.scenario, f.name, `${format(f.value)} ${f.unit}`, f.bar, verdict(f.pass), f.note ?? '']);
}

function table(figures: Figure[]): string {
  const rows = [['scenario', 'figure', 'value', 'bar', 'result', 'note'], ...rowsOf(figures)];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows
    .map((r) =>
      r
        .map((cell, i) => cell.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

function markdown(figures: Array<Figure & { at: string }>): string {
  const cpu = cpus();
  const machine = `${cpu[0]?.model.trim() ?? 'unknown cpu'}, ${cpu.length} cores, ${(totalmem() / 2 ** 30).toFixed(1)} GiB memory`;
  const lines = [
    '# Benchmark results',
    '',
    "Written by `npm run bench` (bench/index.ts); each bar is the product's target. Every figure comes from the real",
    "bin (`node bin/payer-onboard.js run|validate`) in its own process against the sandbox in the benchmark's process,",
    "so the client's CPU and memory are its own. rows/s is rows over the run's own duration (both passes: reading",
    'every input, then validating and sending each row); every payer row has a bank account, so a first run of it is 4 requests (3 creates and the read of stored accounts).',
    '',
    `- Machine: ${machine}`,
    `- Node: ${process.version} (${process.platform} ${process.arch})`,
    `- Date: ${new Date().toISOString()}`,
    '',
    '| scenario | figure | value | bar | result | note | measured |',
    '|---|---|---|---|---|---|---|',
    ...figures.map(
      (f) =>
        `| ${f.scenario} | ${f.name} | ${format(f.value)} ${f.unit} | ${f.bar || '-'} | ${verdict(f.pass)} | ${f.note ?? ''} | ${f.at.slice(0, 16).replace('T', ' ')} |`,
    ),
    '',
    'Scenarios: `npm run bench -- latency-bound` (with the one-payer-at-a-time baseline), `nightly`, `status`, `rate-cap`, `rate-bound`, `rate-limited`, `faults`, `webhooks`, `webhook-attack`, `serve-waiting`, `serve-catch-up` (BENCH_CATCH_UP: the sizes, default `10000,100000`), `serve-waiting-postgres` (with BENCH_DATABASE_URL, a PostgreSQL server; with BENCH_STORE=postgres as well, any scenario keeps its journal there, its figures under `<scenario>-postgres`), `cpu`, `newman`, `startup`, `validate`, `client-cost`, `memory`.',
    'The sandbox behaves like the real service (the KYC gate, Idempotency-Key ignored); where rows must end ok for another',
    'purpose, payers are approved at creation (`kycAfter: 0`). `nightly` uses the gate: 10,000 payers registered and',
    'waiting, 10% approved, then the same file again with the journal kept. `rate-cap` is what a user waits for at the',
    "service's real cap (2, 5, 10 or 20 requests a second a key, reads included): 2,000 new payers at `--rate 5` and 20",
    'against a sandbox capped at the same rate, the gate known from the journal, in payers an hour against the limit',
    'rate x 3600 / 2 (a first run costs a payer its two writes); and the requests of a whole lifecycle.',
    '`faults` throws every kind of transient fault at 150 rows at once (`--retries 10`): 429s that come whatever the rate',
    '(so lowering it does not help, and the client must find that out and stop lowering it), 500s, resets, and creates',
    'whose answer is lost after the change was made (so a retry must not create it again).',
    '`webhooks` runs `serve` (the bin) over an inbox of 1,000 payers left waiting on KYC, the sandbox sending signed',
    'webhooks to it; then approves them evenly over a minute and times each bank account from approval to stored.',
    'Its reads a day of a waiting payer are computed from the recheck intervals, not measured. `serve-waiting` leaves',
    "100,000 payers waiting in serve's store, then approves 40 of them one at a time, each with its webhook.",
    '`webhook-attack` sends 1,000 signed deliveries a minute to `serve` (the bin) from one loopback address while another',
    'holds 600 connections that dribble their headers: the service gives a delivery 5 s.',
    '',
    'Reading the latency-bound rows: `--concurrency c` is c payers in flight, each taking two round trips (compliance,',
    'with the read of stored accounts alongside, then its payment details and agreement together), so the ideal is',
    'c / (2 x 0.05) rows/s and the bar 85% of it.',
    'That holds while the client has CPU to spare: one core allows at most 1000 / (client CPU ms per row) rows/s, and',
    "the sandbox answering every request shares the same machine. client-cost shows how much of a row's CPU is the",
    "HTTP layer (4 requests a row) and how much of that is got itself rather than Node's http.",
    '',
    '`cpu` runs 2,000 rows at zero latency, concurrency 16, with a rate cap on (`--rate 100000`: the limiter counts every',
    'request but holds none back), and the same requests (2 + 2 a row, 16 rows in flight) from a bare got loop with the',
    "product's got options and from a bare node:http loop, each a whole process measured the same way, in the same run.",
    'Then a profiled run of the same job (`node --cpu-prof`, which itself adds CPU) split by component: each sample goes',
    "to the component of the function it was in; built-ins, hashing, zod, the compact tables and Node's own modules (fs,",
    "events, streams, timers) go to their caller, so a write(2) of the journal is the journal's; a row's check in either",
    "pass (classifyRows, scanInputs) is validation. The rows marked * are the tool's own per-request work. `cpu-before` is",
    'the same scenario run with `BENCH_BIN` set to the bin of the commit before a change, profiled by the same rules.',
    '`newman` runs the same 200 new payers at 50 ms latency twice against one sandbox: payer-onboard with its defaults',
    '(`--rate 0`), then a Postman collection of the same three creates (compliance, payment details, agreement) run',
    'by Newman 6 over a data file; Newman is installed on demand into bench/scratch/newman, never a dependency.',
    '',
  ];
  return lines.join('\n');
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`bench: ${(error as Error).stack ?? String(error)}\n`);
    process.exitCode = 2;
  },
);
