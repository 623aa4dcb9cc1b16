import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { setTimeout as sleep } from 'node:timers/promises';
import { STORE_FILE } from '../src/store/SqliteStore.js';
import { writePayersCsv } from './generate.js';
import { type Figure, withSandbox } from './scenarios.js';
import { SCRATCH } from './spawnCli.js';
import { firstRunEnded, freePort, health, startServe, until, waitingRows } from './webhooks.js';

// `serve` down for an hour while every waiting payer was approved, their deliveries lost (the service drops one after
// about 21 s of retries): how long the catch-up after the restart takes to read each one once and attach its bank
// account, at 10,000 and 100,000 waiting payers. The sandbox is not capped and neither is serve (`--rate 0`: the
// catch-up's half of no cap is no cap), so this is what serve's own work costs; at a real key's rate the rate decides
// (the note gives that time). /healthz is asked meanwhile: events and files are taken between slices.

const SIZES = (process.env.BENCH_CATCH_UP ?? '10000,100000').split(',').map(Number);
const SECRET = 'whsec-bench-7c21';
const id = (prefix: string, i: number) => `${prefix}-${String(i + 1).padStart(7, '0')}`;

interface CatchUpHealth {
  ok?: boolean;
  eventsPending?: number;
  busy?: boolean;
  catchUp?: { rows: number; done: number; startedAt: string; finishedAt?: string };
}

export async function serveCatchUp(): Promise<Figure[]> {
  const figures: Figure[] = [];
  for (const payers of SIZES) figures.push(...(await catchUpOf(payers)));
  return figures;
}

async function catchUpOf(payers: number): Promise<Figure[]> {
  const root = join(SCRATCH, `serve-catch-up-${payers}-${Date.now()}`);
  mkdirSync(join(root, 'inbox', 'incoming'), { recursive: true });
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const prefix = `cu${payers}`;
  try {
    // No webhook is sent at all: every delivery of the hour down is one the service dropped.
    return await withSandbox({ kycAfter: undefined }, async (sandbox) => {
      const first = startServe(sandbox, root, port, 0, { PAYER_WEBHOOK_SECRET: SECRET });
      try {
        if (!(await until('serve to listen', 30_000, async () => (await health(url))?.ok === true)))
          throw new Error(`bench: serve-catch-up: serve did not answer: ${(await first.stop()).stderr.slice(-2000)}`);
        const csv = join(root, 'payers.csv');
        await writePayersCsv(csv, payers, prefix);
        renameSync(csv, join(root, 'inbox', 'incoming', 'payers.csv'));
        if (!(await until('the first run to end', 1_800_000, () => firstRunEnded(join(root, 'inbox')))))
          throw new Error('bench: serve-catch-up: the first run did not end');
      } finally {
        await first.stop().catch(() => undefined);
      }
      const waiting = waitingRows(join(root, 'state'));
      if (waiting !== payers) throw new Error(`bench: serve-catch-up: ${waiting} of ${payers} rows waiting`);
      for (let i = 0; i < payers; i++) sandbox.setKyc(id(prefix, i), 'approved');
      // Registered two hours ago, serve down for the last one.
      backdate(join(root, 'state'), new Date(Date.now() - 7_200_000), new Date(Date.now() - 3_600_000));
      const before = sandbox.stats();

      const started = performance.now();
      const serve = startServe(sandbox, root, port, 0, { PAYER_WEBHOOK_SECRET: SECRET });
      const healthMs: number[] = [];
      let last: CatchUpHealth | undefined;
      try {
        const done = await until('the catch-up to end', 3_600_000, async () => {
          const asked = performance.now();
          last = (await health(url)) as CatchUpHealth | undefined;
          if (last !== undefined) healthMs.push(performance.now() - asked);
          await sleep(400);
          return last?.catchUp?.finishedAt !== undefined;
        });
        if (!done) throw new Error(`bench: serve-catch-up: not done: ${JSON.stringify(last)}`);
      } finally {
        await serve.stop().catch(() => undefined);
      }
      const seconds = (performance.now() - started) / 1000;
      const catchUp = last!.catchUp!;
      const ownSeconds = (Date.parse(catchUp.finishedAt!) - Date.parse(catchUp.startedAt)) / 1000;
      const after = sandbox.stats();
      const requests = after.requests - before.requests;
      const created = after.paymentDetailsCreated - before.paymentDetailsCreated;
      const twice = after.duplicatePaymentDetails - before.duplicatePaymentDetails;
      const slowest = Math.max(...healthMs);
      const atDefault = requests / 2.5;
      return [
        {
          scenario: 'serve-catch-up',
          name: `serve down an hour with ${payers.toLocaleString('en-US')} payers waiting, all approved meanwhile and their deliveries lost: the catch-up after the restart, uncapped`,
          value: Math.round(ownSeconds),
          unit: 's',
          bar: '-',
          pass: created === payers && twice === 0 ? undefined : false,
          note:
            `${catchUp.done} of ${catchUp.rows} waiting rows read again, ${created} bank accounts attached, ${twice} twice; ` +
            `${requests} requests (${(requests / payers).toFixed(2)} a payer); from serve's start ${Math.round(seconds)} s; ` +
            `/healthz meanwhile: slowest ${Math.round(slowest)} ms of ${healthMs.length}; at the default --rate 5 ` +
            `(the catch-up's half: 2.5 requests/s) those requests take about ${(atDefault / 3600).toFixed(1)} h`,
        },
      ];
    });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** The payers' last checks and serve's note of when it was last alive, set back: as if it had all happened then. */
function backdate(stateDir: string, checked: Date, alive: Date): void {
  const db = new DatabaseSync(join(stateDir, STORE_FILE));
  try {
    db.prepare('UPDATE journal_payers SET checked_at = ?').run(checked.toISOString());
    db.prepare("UPDATE journal_settings SET value = ? WHERE name = 'serve-alive-at'").run(alive.toISOString());
  } finally {
    db.close();
  }
}
