import { mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SandboxHandle } from '../src/sandbox/index.js';
import { writePayersCsv } from './generate.js';
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
// SQLite store), then approvals one at a time, each with its signed webhook: how long from an approval to its bank
// account attached, and how much memory serve holds meanwhile. Before the rows lived in the store, every batch of
// events read and rewrote the whole waiting file: 100,000 waiting took 7 s at the median, 10.5 s at p95, 495 MB.

const PAYERS = Number(process.env.BENCH_SERVE_WAITING ?? 100_000);
const APPROVALS = 40;
const SECRET = 'whsec-bench-7c21';

const id = (i: number) => `sw-${String(i + 1).padStart(7, '0')}`;

/** serve's resident memory now, from /proc (the peak over its life includes the first run of the whole file). */
function rssMb(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

export async function serveWaiting(): Promise<Figure[]> {
  const root = join(SCRATCH, `serve-waiting-${Date.now()}`);
  mkdirSync(join(root, 'inbox', 'incoming'), { recursive: true });
  const port = await freePort();
  const options = { kycAfter: undefined, webhookUrl: `http://127.0.0.1:${port}/webhooks`, webhookSecret: SECRET };
  try {
    return await withSandbox(options, async (sandbox) => {
      // No cap: the first run registers every payer as fast as the loopback sandbox answers.
      const serve = startServe(sandbox, root, port, 0);
      try {
        return await measure(sandbox, root, `http://127.0.0.1:${port}`, serve);
      } finally {
        await serve.stop().catch(() => undefined);
      }
    });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

async function measure(sandbox: SandboxHandle, root: string, url: string, serve: Serving): Promise<Figure[]> {
  const inbox = join(root, 'inbox');
  if (!(await until('serve to listen', 30_000, async () => (await health(url))?.ok === true)))
    throw new Error(`bench: serve-waiting: serve did not answer: ${(await serve.stop()).stderr.slice(-2000)}`);
  const csv = join(root, 'payers.csv');
  await writePayersCsv(csv, PAYERS, 'sw');
  const firstStarted = performance.now();
  renameSync(csv, join(inbox, 'incoming', 'payers.csv'));
  const ended = await until('the first run to end with its rows waiting', 1_800_000, () => firstRunEnded(inbox));
  const firstSeconds = (performance.now() - firstStarted) / 1000;
  const waiting = waitingRows(join(root, 'state'));
  if (!ended || waiting !== PAYERS)
    throw new Error(`bench: serve-waiting: ${waiting} of ${PAYERS} rows waiting after the first run`);
  // What the first run's agreements brought (one event a payer, KYC still under way) is settled before timing.
  await until('serve to be idle', 600_000, async () => {
    const h = await health(url);
    return h?.eventsPending === 0 && h.busy === false;
  });

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
  delays.sort((a, b) => a - b);
  const all = delays.length === APPROVALS;
  const p95 = all ? percentile(delays, 95) : Number.POSITIVE_INFINITY;
  const stopped = await serve.stop();
  const scenario = 'serve-waiting';
  const waitingText = PAYERS.toLocaleString('en-US');
  return [
    {
      scenario,
      name: `serve with ${waitingText} payers waiting on KYC (SQLite store), ${APPROVALS} approvals one at a time, each with its webhook: approval to bank account attached, p95`,
      value: p95 / 1000,
      unit: 's',
      bar: '<= 2',
      pass: all && p95 <= 2000,
      note: `p50 ${(percentile(delays, 50) / 1000).toFixed(2)} s, max ${((delays.at(-1) ?? Number.NaN) / 1000).toFixed(2)} s; ${delays.length} of ${APPROVALS} attached; ${after.requests - before.requests} requests for them, ${after.duplicatePaymentDetails} accounts twice; first run (${waitingText} registered, left waiting in the store): ${firstSeconds.toFixed(0)} s`,
    },
    {
      scenario,
      name: `the same: serve's resident memory while the approvals come (${waitingText} waiting)`,
      value: Math.round(rss),
      unit: 'MB',
      bar: '<= 300',
      pass: rss > 0 && rss <= 300,
      note: `VmRSS after each attachment, the most of them; the peak over serve's life, its first run of the ${waitingText}-row file included: ${stopped.maxRssMb.toFixed(0)} MB; exit ${stopped.exitCode} on SIGTERM`,
    },
  ];
}
