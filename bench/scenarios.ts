import { benchDatabase, postgresGiven } from './postgres.js';
import { mkdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { readAhead } from '../src/pipeline/sendRows.js';
import { startSandbox, type SandboxHandle, type SandboxOptions } from '../src/sandbox/index.js';
import { writePayersCsv } from './generate.js';
import { HTTP_FLOOR, parseSummary, runCli, runNode, SCRATCH, type RunSummary } from './spawnCli.js';

export interface Figure {
  scenario: string;
  name: string;
  value: number;
  unit: string;
  /** The bar in words, e.g. ">= 136"; empty for a figure that is reported only. */
  bar: string;
  pass: boolean | undefined;
  note?: string;
}

export const API_KEY = 'bench-key';

/**
 * A sandbox in this (the benchmark's) process: the client runs in a child, so its CPU and memory are its own.
 * It behaves like the real service (the KYC gate, Idempotency-Key ignored, 200 for a known payer); where rows must
 * end ok for another purpose (latency, rates, CPU, memory), payers are approved at creation (`kycAfter: 0`).
 */
export async function withSandbox<T>(
  options: SandboxOptions,
  body: (sandbox: SandboxHandle) => Promise<T>,
): Promise<T> {
  const sandbox = await startSandbox({ port: 0, apiKey: API_KEY, keepRequests: false, kycAfter: 0, ...options });
  try {
    return await body(sandbox);
  } finally {
    await sandbox.close();
  }
}

export async function input(rows: number, name: string, signed = true): Promise<string> {
  mkdirSync(SCRATCH, { recursive: true });
  const path = join(SCRATCH, `${name}.csv`);
  await writePayersCsv(path, rows, name, signed);
  return path;
}

/** `run` against the sandbox through the real bin; a fresh out dir each time, and a fresh state dir unless given. */
/** What every run the scenarios start has in its environment besides the key (the store's URL, with BENCH_STORE). */
export const runEnv: NodeJS.ProcessEnv = {};

export async function runAgainst(
  sandbox: SandboxHandle,
  file: string,
  flags: Record<string, string | number>,
  onSpawn?: (pid: number) => void,
  keepState?: string,
  nodeArgs: string[] = [],
  env: NodeJS.ProcessEnv = {},
) {
  const tag = `${Date.now()}-${Math.random().toString(36).slice(2, 6)}`;
  const out = join(SCRATCH, 'out', tag);
  const state = keepState ?? join(SCRATCH, 'state', tag);
  const args = [
    'run',
    file,
    '--base-url',
    sandbox.url,
    '--out',
    out,
    '--state-dir',
    state,
    '--json',
    '--no-progress',
    '--log-level',
    'warn',
  ];
  for (const [flag, value] of Object.entries(flags)) args.push(`--${flag}`, String(value));
  const figures = await runCli(args, { PAYER_API_KEY: API_KEY, ...runEnv, ...env }, onSpawn, nodeArgs);
  const summary = parseSummary(figures);
  rmSync(out, { recursive: true, force: true });
  if (keepState === undefined) rmSync(state, { recursive: true, force: true });
  return { figures, summary };
}

const rowsPerSecond = (s: RunSummary) => s.rows.total / (s.durationMs / 1000);
export const allOk = (s: RunSummary) => s.rows.ok === s.rows.total;

/** The send phase as the sandbox saw it: first to last arrival. */
function sendPhaseSeconds(sandbox: SandboxHandle): number {
  const arrivals = sandbox.arrivals();
  return ((arrivals.at(-1) ?? 0) - (arrivals[0] ?? 0)) / 1000;
}

const BASELINE_ROWS = 300;

/**
 * Latency-bound at concurrency 4 and 16, and the one-at-a-time baseline beside it.
 * `--concurrency c` is c payers in flight, each taking two round trips (compliance, then payment details and
 * agreement together), so the ideal is c / (2 x 0.05) rows/s and the bar 85% of it. At concurrency 64 the ideal,
 * 640 rows/s (2,560 requests/s), is a hundred times the fastest tier of the real service: what it shows there is the
 * client's CPU per request, not a rate a user will meet.
 */
async function latencyBound(): Promise<Figure[]> {
  const figures: Figure[] = [];
  const file = await input(2000, 'latency');
  const baselineFile = await input(BASELINE_ROWS, 'baseline');
  let baseline = 0;
  await withSandbox({ latencyMs: 50 }, async (sandbox) => {
    sandbox.reset();
    const { summary } = await runAgainst(sandbox, baselineFile, { rate: 0, concurrency: 1 });
    baseline = rowsPerSecond(summary);
    // The latency-bound bar, 85% of c / (2 x 0.05) rows/s, at c = 1. One payer at a time still sends its payment
    // details and agreement together; a runner sending one request at a time would need 3 round trips a row.
    const bar = (0.85 * 1) / (2 * 0.05);
    figures.push({
      scenario: 'baseline',
      name: `concurrency 1 (one payer at a time), ${BASELINE_ROWS} rows: rows/s`,
      value: baseline,
      unit: 'rows/s',
      bar: `>= ${bar.toFixed(1)}`,
      pass: baseline >= bar && allOk(summary),
      note: `ideal 1 / (2 x 0.05) = 10; one request at a time could do at most 1 / (3 x 0.05) = ${(1 / 0.15).toFixed(2)}`,
    });
    for (const c of [4, 16, 64]) {
      sandbox.reset();
      const { summary: s, figures: f } = await runAgainst(sandbox, file, { rate: 0, concurrency: c });
      const value = rowsPerSecond(s);
      if (c === 64) {
        figures.push({
          scenario: 'latency-bound',
          name: 'concurrency 64, 2,000 rows: client CPU per request (user + system, whole process)',
          value: f.cpuMs / s.requests.total,
          unit: 'ms/request',
          bar: '',
          pass: allOk(s) ? undefined : false,
          note: `${s.requests.total} requests, ${(f.cpuMs / 1000).toFixed(1)} s CPU; ${value.toFixed(0)} rows/s; most requests in flight ${sandbox.stats().maxInFlight}`,
        });
        continue;
      }
      const min = (0.85 * c) / (2 * 0.05);
      if (c === 16) {
        const perRow = sandbox.stats().requests / s.rows.total;
        figures.push({
          scenario: 'latency-bound',
          name: 'a first run of new payers: requests per row (create compliance with the read of stored accounts alongside, payment details, agreement)',
          value: perRow,
          unit: 'req/row',
          bar: '<= 4',
          pass: perRow <= 4 && allOk(s),
        });
      }
      figures.push({
        scenario: 'latency-bound',
        name: `concurrency ${c}, 2,000 rows: rows/s`,
        value,
        unit: 'rows/s',
        bar: `>= ${min.toFixed(0)}`,
        pass: value >= min && allOk(s),
        note: `${(value / baseline).toFixed(1)}x the baseline; send phase ${(s.rows.total / sendPhaseSeconds(sandbox)).toFixed(0)} rows/s; most requests in flight ${sandbox.stats().maxInFlight}; client CPU ${(f.cpuMs / s.rows.total).toFixed(2)} ms/row`,
      });
    }
  });
  return figures;
}

/** Rate-bound: --rate 20 holds 20 requests/s on average and never more than 20 in any one-second window. */
async function rateBound(): Promise<Figure[]> {
  const file = await input(300, 'rate');
  return withSandbox({ latencyMs: 20 }, async (sandbox) => {
    // The arrival times are the sandbox's: a stall of this process's event loop would bunch them up.
    const loop = monitorEventLoopDelay({ resolution: 5 });
    loop.enable();
    const { summary } = await runAgainst(sandbox, file, { rate: 20, concurrency: 16 });
    loop.disable();
    const stallMs = loop.max / 1e6;
    const arrivals = sandbox.arrivals();
    const mean = (arrivals.length - 1) / (((arrivals.at(-1) ?? 0) - (arrivals[0] ?? 0)) / 1000);
    const maxIn1s = sandbox.maxInWindow(1000);
    return [
      {
        scenario: 'rate-bound',
        name: '--rate 20, 300 rows: mean requests/s (sandbox arrivals)',
        value: mean,
        unit: 'req/s',
        bar: '19 .. 21',
        pass: Math.abs(mean - 20) <= 1 && allOk(summary),
      },
      {
        scenario: 'rate-bound',
        name: '--rate 20: most arrivals in any 1 s window',
        value: maxIn1s,
        unit: 'req',
        bar: '<= 20',
        pass: maxIn1s <= 20,
        note: `sandbox event loop: longest stall ${stallMs.toFixed(0)} ms`,
      },
    ];
  });
}

/** Rate-limited: a server limited to 10/s that sends no Retry-After, a client allowed 50/s: AIMD finds the limit. */
async function rateLimited(): Promise<Figure[]> {
  const rows = 300;
  const file = await input(rows, 'limited');
  return withSandbox({ latencyMs: 20, rateLimit: 10, retryAfter: false }, async (sandbox) => {
    const { summary } = await runAgainst(sandbox, file, { rate: 50, concurrency: 8, retries: 10 });
    const total = summary.requests.total;
    const throttled = summary.requests.byStatus['429'] ?? 0;
    const share = (100 * throttled) / total;
    // "Once adapted": rows/s over the second half of the run's requests, as the sandbox saw them arrive.
    const arrivals = sandbox.arrivals();
    const half = arrivals.slice(Math.floor(arrivals.length / 2));
    const adaptedReqPerS = (half.length - 1) / (((half.at(-1) ?? 0) - (half[0] ?? 0)) / 1000);
    // A first run of a payer with a bank account is 4 requests (3 creates and the read of stored accounts).
    const adaptedRows = adaptedReqPerS / 4;
    const bar = (0.8 * 10) / 4;
    return [
      {
        scenario: 'rate-limited',
        name: `rows ok of ${rows} (sandbox --rate-limit 10, no Retry-After; client --rate 50)`,
        value: summary.rows.ok,
        unit: 'rows',
        bar: `= ${rows}`,
        pass: allOk(summary),
      },
      {
        scenario: 'rate-limited',
        name: '429 share of all responses',
        value: share,
        unit: '%',
        bar: '< 5',
        pass: share < 5,
        note: `${throttled} of ${total}`,
      },
      {
        scenario: 'rate-limited',
        name: 'rows/s once adapted (second half of the requests)',
        value: adaptedRows,
        unit: 'rows/s',
        bar: `>= ${bar.toFixed(2)}`,
        pass: adaptedRows >= bar,
        note: `whole run ${rowsPerSecond(summary).toFixed(2)} rows/s; most arrivals in 1 s ${sandbox.maxInWindow(1000)}`,
      },
    ];
  });
}

/**
 * Transient faults: one answer in ten a 429 with `Retry-After: 1` whatever the rate, 10% 500s, 5% resets, 5% answers
 * lost after the change was made; 150 rows at `--rate 0`. Every row ends ok within 2 minutes, nothing is created twice,
 * and 429s that do not follow the rate do not drive it down (the client honours their Retry-After instead).
 */
async function faults(): Promise<Figure[]> {
  const rows = 150;
  const file = await input(rows, 'faults');
  const sandboxFaults = { fault429: 0.1, fault500: 0.1, faultReset: 0.05, faultCommit500: 0.05 };
  return withSandbox(sandboxFaults, async (sandbox) => {
    // Six attempts a call at 30% faults leave a call in a thousand failing for good; eleven, none.
    const { summary } = await runAgainst(sandbox, file, { rate: 0, retries: 10 });
    const stats = sandbox.stats();
    const seconds = summary.durationMs / 1000;
    const twice = stats.duplicatePaymentDetails + Math.max(0, stats.payersCreated - rows);
    const arrivals = sandbox.arrivals();
    const half = arrivals.slice(Math.floor(arrivals.length / 2));
    const secondHalf = (half.length - 1) / (((half.at(-1) ?? 0) - (half[0] ?? 0)) / 1000);
    const note = `${stats.byStatus['429'] ?? 0} 429s, ${stats.byStatus['500'] ?? 0} 500s of ${stats.requests} requests; ${summary.requests.retries} retries`;
    return [
      {
        scenario: 'faults',
        name: `rows ok of ${rows} (10% 429 with Retry-After 1, 10% 500, 5% resets, 5% commit-then-500; --rate 0)`,
        value: summary.rows.ok,
        unit: 'rows',
        bar: `= ${rows}`,
        pass: allOk(summary),
        note,
      },
      {
        scenario: 'faults',
        name: 'run time',
        value: seconds,
        unit: 's',
        bar: '< 120',
        pass: seconds < 120,
        note: `${rowsPerSecond(summary).toFixed(2)} rows/s`,
      },
      {
        scenario: 'faults',
        name: 'created twice: bank accounts, and payers beyond one a row',
        value: twice,
        unit: 'records',
        bar: '= 0',
        pass: twice === 0 && stats.payersCreated === rows && stats.paymentDetailsCreated === rows,
        note: `${stats.payersCreated} payers, ${stats.paymentDetailsCreated} bank accounts; ${stats.duplicatePayers} create-compliance calls for a known payer (a lost answer sent again: the service returns the stored payer)`,
      },
      {
        scenario: 'faults',
        name: 'requests/s the sandbox saw in the second half of the run',
        value: secondHalf,
        unit: 'req/s',
        bar: '',
        pass: undefined,
        note: 'a rate driven to its floor by these 429s would be 1 req/s; each 429 still pauses every call for its Retry-After',
      },
    ];
  });
}

/** What the client itself costs: zero latency, no cap, concurrency 32, 20,000 rows; and the HTTP layer's share. */
async function clientCost(): Promise<Figure[]> {
  const rows = 20_000;
  const file = await input(rows, 'cost');
  const run = await withSandbox({}, async (sandbox) => {
    const { summary, figures } = await runAgainst(sandbox, file, { rate: 0, concurrency: 32 });
    const perRow = figures.cpuMs / rows;
    return [
      {
        scenario: 'client-cost',
        name: 'zero latency, concurrency 32, 20,000 rows: rows/s',
        value: rowsPerSecond(summary),
        unit: 'rows/s',
        bar: '',
        pass: allOk(summary) ? undefined : false,
      },
      {
        scenario: 'client-cost',
        name: 'client CPU per row (user + system, client process only)',
        value: perRow,
        unit: 'ms/row',
        bar: '',
        pass: undefined,
        note: `${(figures.cpuMs / 1000).toFixed(1)} s CPU in ${(figures.wallMs / 1000).toFixed(1)} s wall; one core allows at most ${(1000 / perRow).toFixed(0)} rows/s; peak RSS ${figures.maxRssMb.toFixed(0)} MB`,
      },
    ];
  });
  return [...run, ...(await httpFloor())];
}

/** The CPU of one request in the HTTP layer alone (bench/httpFloor.ts in its own process), got beside Node's http. */
async function httpFloor(): Promise<Figure[]> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"success":true}'));
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const measure = async (mode: 'got' | 'http') => {
      const figures = await runNode(HTTP_FLOOR, [url, mode, '6000']);
      return JSON.parse(figures.stdout) as { cpuUsPerRequest: number; perSecond: number };
    };
    const viaGot = await measure('got');
    const viaHttp = await measure('http');
    const note = (m: { perSecond: number }) =>
      `6,000 PATCHes, 64 in flight, to a bare loopback server answering at once: ${m.perSecond.toFixed(0)} requests/s`;
    return [
      {
        scenario: 'client-cost',
        name: 'got alone: CPU per request',
        value: viaGot.cpuUsPerRequest / 1000,
        unit: 'ms/request',
        bar: '',
        pass: undefined,
        note: note(viaGot),
      },
      {
        scenario: 'client-cost',
        name: "Node's http.request alone: CPU per request",
        value: viaHttp.cpuUsPerRequest / 1000,
        unit: 'ms/request',
        bar: '',
        pass: undefined,
        note: note(viaHttp),
      },
    ];
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** Memory: run 100,000 rows; a row held back by a slow call (validate's figures: bench/cliScenarios.ts). */
async function memory(): Promise<Figure[]> {
  const figures: Figure[] = [];
  const hundredK = await input(100_000, 'hundredk');
  // The store in SQLite, and (with BENCH_DATABASE_URL) in PostgreSQL, whose writes go out over the network.
  for (const store of postgresGiven() ? (['SQLite', 'PostgreSQL'] as const) : (['SQLite'] as const)) {
    const database = store === 'PostgreSQL' ? await benchDatabase('memory') : undefined;
    try {
      await withSandbox({ keepRequests: false }, async (sandbox) => {
        const flags = { rate: 0, concurrency: 32 };
        const { figures: f, summary } = await runAgainst(
          sandbox,
          hundredK,
          flags,
          undefined,
          undefined,
          [],
          database?.env,
        );
        figures.push({
          scenario: 'memory',
          name: `run 100,000 rows against the sandbox (${store} store): peak RSS of the client`,
          value: f.maxRssMb,
          unit: 'MB',
          bar: '< 250',
          pass: f.maxRssMb < 250 && allOk(summary),
          // The client's CPU too: a figure a machine shared with other work changes less than the wall time.
          note: `${(f.wallMs / 1000).toFixed(0)} s, ${rowsPerSecond(summary).toFixed(0)} rows/s; client CPU ${(f.cpuMs / 1000).toFixed(1)} s (${(f.cpuMs / summary.rows.total).toFixed(2)} ms/row)`,
        });
      });
    } finally {
      await database?.drop();
    }
  }
  rmSync(hundredK, { force: true });

  figures.push(...(await slowRow()));
  return figures;
}

/**
 * A row held back by a slow call: the rows behind it finish but cannot be written before it (results are in
 * input order), so they wait in the ordered writer. The run stops reading once `window` rows are open,
 * so what waits is bounded whatever the file's length; this counts the rows started while the slow one is held.
 */
async function slowRow(): Promise<Figure[]> {
  const concurrency = 8;
  const holdMs = 6000;
  const file = await input(2000, 'slowrow');
  return withSandbox({}, async (sandbox) => {
    sandbox.script([{ route: 'compliance', fault: 'slow', delayMs: holdMs }]);
    let maxStarted = 0;
    let started: number | undefined;
    const poll = setInterval(() => {
      const s = sandbox.stats();
      if (started === undefined && s.requests > 0) started = performance.now();
      if (started !== undefined && performance.now() - started < holdMs - 500)
        maxStarted = Math.max(maxStarted, s.payersCreated);
    }, 50);
    const { summary } = await runAgainst(sandbox, file, { rate: 0, concurrency });
    clearInterval(poll);
    const window = readAhead(concurrency);
    return [
      {
        scenario: 'memory',
        name: `a call held ${holdMs / 1000} s: rows started (so, at most, waiting in the in-order writer) meanwhile`,
        value: maxStarted,
        unit: 'rows',
        bar: `<= ${window}`,
        pass: maxStarted <= window && allOk(summary),
        note: `bound = the read-ahead, ${window} rows at concurrency ${concurrency}, the held row included; 2,000-row file`,
      },
    ];
  });
}

/**
 * The nightly re-run: 10,000 payers registered and waiting on KYC (the real-like gate), 10% approved since; the same
 * file again at 50 ms latency, concurrency 16, no cap. A waiting row costs one read; an approved one a read of what
 * it has stored (the journal is one writer's memory) and its bank account too. None of these calls go out together, so a
 * row takes as many round trips as requests: the ideal is 16 / (0.05 x requests per row) rows/s, the bar 85% of it.
 */
async function nightly(): Promise<Figure[]> {
  const rows = 10_000;
  const file = await input(rows, 'nightly');
  const state = join(SCRATCH, 'state', `nightly-${Date.now()}`);
  return withSandbox({ latencyMs: 50, kycAfter: undefined }, async (sandbox) => {
    const first = await runAgainst(sandbox, file, { rate: 0, concurrency: 64 }, undefined, state);
    const waiting = first.summary.rows.waiting ?? 0;
    for (let i = 0; i < rows; i += 10) sandbox.setKyc(`nightly-${String(i + 1).padStart(7, '0')}`, 'approved');
    const before = sandbox.stats();
    const { summary, figures: f } = await runAgainst(sandbox, file, { rate: 0, concurrency: 16 }, undefined, state);
    rmSync(state, { recursive: true, force: true });
    const after = sandbox.stats();
    const perRow = (after.requests - before.requests) / rows;
    // The re-run's own arrivals: the first run's are in the log before them.
    const rerun = sandbox.arrivals().slice(before.requests);
    const rerunSeconds = ((rerun.at(-1) ?? 0) - (rerun[0] ?? 0)) / 1000;
    const value = rowsPerSecond(summary);
    const ideal = 16 / (0.05 * perRow);
    const bar = 0.85 * ideal;
    const created = after.paymentDetailsCreated - before.paymentDetailsCreated;
    return [
      {
        scenario: 'nightly',
        name: `re-run of ${rows.toLocaleString('en-US')} waiting payers, 10% approved since: requests per row`,
        value: perRow,
        unit: 'req/row',
        bar: '<= 1.25',
        pass: perRow <= 1.25 && summary.rows.ok === rows / 10 && created === rows / 10,
        note: `first run: ${waiting} rows waiting; re-run: ${summary.rows.ok} ok, ${summary.rows.waiting ?? 0} waiting, ${created} bank accounts created, ${after.duplicatePaymentDetails} twice`,
      },
      {
        scenario: 'nightly',
        name: 'the same re-run, 50 ms latency, concurrency 16: rows/s',
        value,
        unit: 'rows/s',
        bar: `>= ${bar.toFixed(0)}`,
        pass: value >= bar,
        note: `ideal ${ideal.toFixed(0)} rows/s (a round trip per request); client CPU ${(f.cpuMs / rows).toFixed(2)} ms/row; send phase ${(rows / rerunSeconds).toFixed(0)} rows/s`,
      },
    ];
  });
}

/**
 * `status` over 1,000 registered payers at 50 ms latency, concurrency 16, no cap: each payer's two reads (its status
 * and its stored accounts) go out together, so the ideal is 16 / 0.05 payers/s and the bar 85% of it.
 */
async function statusReads(): Promise<Figure[]> {
  const payers = 1000;
  const file = await input(payers, 'status');
  // The run's journal is kept for status: it says which payers were ready, whose two reads then go out together.
  const state = join(SCRATCH, 'state', `status-${Date.now()}`);
  return withSandbox({ latencyMs: 50 }, async (sandbox) => {
    const registered = await runAgainst(sandbox, file, { rate: 0, concurrency: 64 }, undefined, state);
    const before = sandbox.stats().requests;
    const out = join(SCRATCH, 'out', `status-${Date.now()}`);
    const args = ['status', file, '--base-url', sandbox.url, '--out', out, '--state-dir', state, '--json'];
    args.push('--no-progress', '--log-level', 'warn', '--rate', '0', '--concurrency', '16');
    const f = await runCli(args, { PAYER_API_KEY: API_KEY });
    rmSync(out, { recursive: true, force: true });
    rmSync(state, { recursive: true, force: true });
    const summary = JSON.parse(f.stdout) as { durationMs: number; payers: { total: number; payable: number } };
    const reads = sandbox.stats().requests - before;
    const value = summary.payers.total / (summary.durationMs / 1000);
    const bar = (0.85 * 16) / 0.05;
    return [
      {
        scenario: 'status',
        name: `status of ${payers.toLocaleString('en-US')} payers, 50 ms latency, concurrency 16, both reads together: payers/s`,
        value,
        unit: 'payers/s',
        bar: `>= ${bar.toFixed(0)}`,
        pass: value >= bar && reads === 2 * payers && summary.payers.payable === registered.summary.rows.ok,
        note: `${reads} reads, ${summary.payers.payable} payable; client CPU ${(f.cpuMs / reads).toFixed(2)} ms/request`,
      },
    ];
  });
}

export const SCENARIOS: Record<string, () => Promise<Figure[]>> = {
  nightly,
  status: statusReads,
  'latency-bound': latencyBound,
  'rate-bound': rateBound,
  'rate-limited': rateLimited,
  faults,
  'client-cost': clientCost,
  memory,
};
