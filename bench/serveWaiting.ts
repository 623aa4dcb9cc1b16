import { mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SandboxHandle } from '../src/sandbox/index.js';
import { writePayersCsv } from './generate.js';
import { benchDatabase } from './postgres.js';
import { type Figure, withSandbox } from './scenarios.js';
import { SCRATCH } from './spawnCli.js';
import {
  firstRunEnded,
  freePort,
  health,
  percentile,
  type Serving,
  startServe,
  until,
  waitingRows,
} from './webhooks.js';

// `serve` with a great many payers waiting on KYC (the bin over an inbox, the journal and the rows waiting in its
// store: SQLite, or PostgreSQL with `serve-waiting-postgres`), then approvals one at a time, each with its signed webhook: how long from an approval to its bank
// account attached, and how much memory serve holds meanwhile. Before the rows lived in the store, every batch of
// events read and rewrote the whole waiting file: 100,000 waiting took 7 s at the median, 10.5 s at p95, 495 MB.

const PAYERS = Number(process.env.BENCH_SERVE_WAITING ?? 100_000);
const APPROVALS = 40;
const SECRET = 'whsec-bench-7c21';
const PASSWORD = 'bench-web-password-1';

/** The Payers page's requests the loader makes in turn while the approvals come: the list, a search, a payer's page. */
const PAGES = [
  { kind: 'the Payers page', path: () => '/payers' },
  { kind: 'a search by id', path: () => `/payers?q=${id(Math.floor(PAYERS / 3)).slice(0, -2)}` },
  { kind: "a payer's page", path: () => `/payers/${id(Math.floor(PAYERS / 2))}` },
] as const;

const id = (i: number) => `sw-${String(i + 1).padStart(7, '0')}`;

/** serve's resident memory now, from /proc (the peak over its life includes the first run of the whole file). */
function rssMb(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

/** The store serve keeps everything in: SQLite in its state dir, or a database of its own on a PostgreSQL server. */
interface Backend {
  name: string;
  env: NodeJS.ProcessEnv;
  waitingRows(): Promise<number>;
  drop(): Promise<void>;
}

export const serveWaiting = () => serveWaitingOn('sqlite');
export const serveWaitingPostgres = () => serveWaitingOn('postgres');

async function serveWaitingOn(kind: 'sqlite' | 'postgres'): Promise<Figure[]> {
  const root = join(SCRATCH, `serve-waiting-${Date.now()}`);
  mkdirSync(join(root, 'inbox', 'incoming'), { recursive: true });
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const options = { kycAfter: undefined, webhookUrl: `${url}/webhooks`, webhookSecret: SECRET };
  const backend = kind === 'sqlite' ? sqlite(join(root, 'state')) : await postgres();
  const env = { PAYER_WEB_PASSWORD: PASSWORD, ...backend.env };
  try {
    return await withSandbox(options, async (sandbox) => {
      // No cap: the first run registers every payer as fast as the loopback sandbox answers.
      const first = startServe(sandbox, root, port, 0, env);
      let setUp: Omit<SetUp, 'firstPeakMb'>;
      try {
        setUp = await firstRun(backend, root, url, first);
      } finally {
        await first.stop().catch(() => undefined);
      }
      // Timed in a serve started afresh over the store the first one left (a deploy): what 100,000 payers waiting
      // cost serve, not what the run that registered them cost it.
      const serve = startServe(sandbox, root, port, 0, env);
      try {
        return await measure(sandbox, url, serve, { ...setUp, firstPeakMb: (await first.done).maxRssMb }, backend);
      } catch (error) {
        // What serve said is what tells why (it stopped, a query failed): the last of it goes with the failure.
        const said =
          (
            await Promise.resolve()
              .then(() => serve.stop())
              .catch(() => undefined)
          )?.stderr.slice(-3000) ?? '';
        throw new Error(`${(error as Error).message}; serve said: ${said}`);
      } finally {
        await serve.stop().catch(() => undefined);
      }
    });
  } finally {
    rmSync(root, { recursive: true, force: true });
    await backend.drop();
  }
}

function sqlite(stateDir: string): Backend {
  return { name: 'SQLite', env: {}, waitingRows: async () => waitingRows(stateDir), drop: async () => undefined };
}

async function postgres(): Promise<Backend> {
  const database = await benchDatabase('serve-waiting-postgres');
  return {
    name: 'PostgreSQL',
    env: database.env,
    waitingRows: () => database.count('SELECT COUNT(*) AS n FROM waiting_rows'),
    drop: () => database.drop(),
  };
}

interface SetUp {
  firstSeconds: number;
  /** How long /healthz took to answer while the first run went on: every answer's time. */
  healthMs: number[];
  firstPeakMb: number;
}

/** The first run of the whole file in serve, /healthz asked meanwhile; done once every row waits and serve is idle. */
async function firstRun(
  backend: Backend,
  root: string,
  url: string,
  serve: Serving,
): Promise<Omit<SetUp, 'firstPeakMb'>> {
  const inbox = join(root, 'inbox');
  if (!(await until('serve to listen', 30_000, async () => (await health(url))?.ok === true)))
    throw new Error(`bench: serve-waiting: serve did not answer: ${(await serve.stop()).stderr.slice(-2000)}`);
  const csv = join(root, 'payers.csv');
  await writePayersCsv(csv, PAYERS, 'sw');
  const firstStarted = performance.now();
  renameSync(csv, join(inbox, 'incoming', 'payers.csv'));
  const probing = new AbortController();
  const probe = probeHealth(url, probing.signal);
  const ended = await until('the first run to end with its rows waiting', 1_800_000, () => firstRunEnded(inbox));
  const firstSeconds = (performance.now() - firstStarted) / 1000;
  probing.abort();
  const healthMs = await probe;
  const waiting = await backend.waitingRows();
  if (!ended || waiting !== PAYERS)
    throw new Error(`bench: serve-waiting: ${waiting} of ${PAYERS} rows waiting after the first run`);
  // What the first run's agreements brought (one event a payer, KYC still under way) is settled before the restart.
  await until('serve to be idle', 600_000, async () => {
    const h = await health(url);
    return h?.eventsPending === 0 && h.busy === false;
  });
  return { firstSeconds, healthMs };
}

/** /healthz asked every half second until the signal: how long each answer took (a minute at most). */
async function probeHealth(url: string, signal: AbortSignal): Promise<number[]> {
  const times: number[] = [];
  while (!signal.aborted) {
    const started = performance.now();
    await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(60_000) })
      .then((answer) => answer.arrayBuffer())
      .catch(() => undefined);
    times.push(performance.now() - started);
    await sleep(500);
  }
  return times;
}

async function measure(
  sandbox: SandboxHandle,
  url: string,
  serve: Serving,
  setUp: SetUp,
  backend: Backend,
): Promise<Figure[]> {
  if (!(await until('serve to start again', 120_000, async () => (await health(url))?.ok === true)))
    throw new Error(`bench: serve-waiting: serve did not start again: ${(await serve.stop()).stderr.slice(-2000)}`);
  const cookie = await signIn(url);
  const coldStarted = performance.now();
  const first = await fetch(`${url}/payers`, { headers: { cookie } });
  const firstBytes = (await first.arrayBuffer()).byteLength;
  const coldSeconds = (performance.now() - coldStarted) / 1000;
  if (first.status !== 200) throw new Error(`bench: serve-waiting: /payers answered ${first.status}`);
  await lag(url); // the scrape starts the window the event loop's delay is measured over
  const loading = new AbortController();
  const timings = loadPages(url, cookie, loading.signal);

  const delays: number[] = [];
  let rss = 0;
  const before = sandbox.stats();
  for (let n = 0; n < APPROVALS; n++) {
    // Payers spread over the whole file, one at a time: each approval waits for nothing but its own event.
    const payer = id(Math.floor(((n + 0.5) * PAYERS) / APPROVALS));
    const approvedAt = Date.now();
    sandbox.setKyc(payer, 'approved');
    const attached = await until(
      `${payer}'s bank account`,
      60_000,
      () => (sandbox.payer(payer)?.paymentDetails.length ?? 0) > 0,
    );
    if (!attached) break;
    delays.push(sandbox.payer(payer)!.paymentDetails[0]!.createdAt - approvedAt);
    rss = Math.max(rss, rssMb(serve.pid()));
    await sleep(200);
  }
  const after = sandbox.stats();
  loading.abort();
  const pages = await timings;
  const metrics = await (await fetch(`${url}/metrics`)).text();
  const lagP99 = Number(/^payer_onboard_nodejs_eventloop_lag_p99_seconds (\S+)/m.exec(metrics)?.[1] ?? Number.NaN);
  const mb = (name: string) =>
    Number(new RegExp(`^payer_onboard_${name} (\\S+)`, 'm').exec(metrics)?.[1] ?? Number.NaN) / 2 ** 20;
  const heap = `V8 heap ${mb('nodejs_heap_size_used_bytes').toFixed(0)} MB used of ${mb('nodejs_heap_size_total_bytes').toFixed(0)} MB, external ${mb('nodejs_external_memory_bytes').toFixed(0)} MB at the end`;
  delays.sort((a, b) => a - b);
  const all = delays.length === APPROVALS;
  const p95 = all ? percentile(delays, 95) : Number.POSITIVE_INFINITY;
  const stopped = await serve.stop();
  const scenario = backend.name === 'SQLite' ? 'serve-waiting' : 'serve-waiting-postgres';
  const waitingText = PAYERS.toLocaleString('en-US');
  return [
    {
      scenario,
      name: `serve with ${waitingText} payers waiting on KYC (${backend.name} store), ${APPROVALS} approvals one at a time, each with its webhook: approval to bank account attached, p95`,
      value: p95 / 1000,
      unit: 's',
      bar: '<= 2',
      pass: all && p95 <= 2000,
      note: `p50 ${(percentile(delays, 50) / 1000).toFixed(2)} s, max ${((delays.at(-1) ?? Number.NaN) / 1000).toFixed(2)} s; ${delays.length} of ${APPROVALS} attached; ${after.requests - before.requests} requests for them, ${after.duplicatePaymentDetails} accounts twice; first run (${waitingText} registered, left waiting in the store): ${setUp.firstSeconds.toFixed(0)} s, in a serve then stopped and started again`,
    },
    {
      scenario,
      name: `the same: serve's resident memory while the approvals come (${waitingText} waiting)`,
      value: Math.round(rss),
      unit: 'MB',
      bar: '<= 300',
      pass: rss > 0 && rss <= 300,
      note: `VmRSS after each attachment, the most of them (the Payers page loaded meanwhile); ${heap}; the peak over this serve's life ${stopped.maxRssMb.toFixed(0)} MB; exit ${stopped.exitCode} on SIGTERM; the serve that ran the first run of the ${waitingText}-row file peaked at ${setUp.firstPeakMb.toFixed(0)} MB (a 100,000-row run's own memory: see \`memory\`)`,
    },
    ...PAGES.map(({ kind }) => {
      const times = (pages.get(kind) ?? []).sort((a, b) => a - b);
      const p95 = percentile(times, 95);
      return {
        scenario,
        name: `the same: ${kind} at ${waitingText} payers, server time (warm, loopback), p95`,
        value: Math.round(p95),
        unit: 'ms',
        bar: '<= 300',
        pass: times.length > 0 && p95 <= 300,
        note: `p50 ${Math.round(percentile(times, 50))} ms over ${times.length} loads while the approvals came${kind === 'the Payers page' ? `; the first page ${(firstBytes / 1024).toFixed(0)} kB; its first load after the first run (the ${waitingText}-row results.csv taken into the store) ${coldSeconds.toFixed(1)} s` : ''}`,
      };
    }),
    {
      scenario,
      name: "the same: serve's event-loop delay while the Payers page is loaded and the approvals' events come, p99",
      value: Math.round(lagP99 * 1000),
      unit: 'ms',
      bar: '<= 50',
      pass: Number.isFinite(lagP99) && lagP99 <= 0.05,
      note: "serve's own payer_onboard_nodejs_eventloop_lag_p99_seconds (prom-client), scraped before and after the window",
    },
    {
      scenario,
      name: `serve answering /healthz while it runs the ${waitingText}-row file and takes its agreements' webhooks: the slowest answer`,
      value: Math.round(Math.max(...setUp.healthMs)),
      unit: 'ms',
      bar: '',
      pass: undefined,
      note: `p50 ${Math.round(
        percentile(
          [...setUp.healthMs].sort((a, b) => a - b),
          50,
        ),
      )} ms over ${setUp.healthMs.length} asks, one every half second (a minute at most each)`,
    },
    {
      scenario,
      name: 'the same: the first page of the Payers page',
      value: Math.round(firstBytes / 1024),
      unit: 'kB',
      bar: '<= 300',
      pass: firstBytes <= 300 * 1024,
      note: '100 payers a page',
    },
  ];
}

async function signIn(url: string): Promise<string> {
  const answer = await fetch(`${url}/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: url },
    body: new URLSearchParams({ password: PASSWORD }).toString(),
  });
  const cookie = (answer.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  if (cookie === '') throw new Error(`bench: serve-waiting: signing in answered ${answer.status}`);
  return cookie;
}

/** The event loop's delay p99 since the last scrape (prom-client resets it at each), in seconds. */
async function lag(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const match = /^payer_onboard_nodejs_eventloop_lag_p99_seconds (\S+)/m.exec(text);
  return match ? Number(match[1]) : Number.NaN;
}

/** The pages loaded one after the other until the signal, each load's time by kind. */
async function loadPages(url: string, cookie: string, signal: AbortSignal): Promise<Map<string, number[]>> {
  const times = new Map<string, number[]>();
  for (let n = 0; !signal.aborted; n++) {
    const { kind, path } = PAGES[n % PAGES.length]!;
    const started = performance.now();
    const answer = await fetch(`${url}${path()}`, { headers: { cookie } });
    await answer.arrayBuffer();
    if (answer.status !== 200) throw new Error(`bench: serve-waiting: ${path()} answered ${answer.status}`);
    times.set(kind, [...(times.get(kind) ?? []), performance.now() - started]);
    await sleep(100);
  }
  return times;
}
