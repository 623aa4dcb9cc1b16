import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { SandboxHandle } from '../src/sandbox/index.js';
import { API_KEY, allOk, type Figure, input, runAgainst, withSandbox } from './scenarios.js';
import { runCli, SCRATCH } from './spawnCli.js';

// What a user waits for at the service's real cap: 2, 5, 10 or 20 requests a second a key, reads included. There,
// the time a file takes is its requests over the rate, nothing else; so the figure is payers registered per hour
// against the physical limit (rate x 3600 / requests a payer), and the requests a payer costs over its whole
// lifecycle. The sandbox gates bank accounts on KYC, as the real service does, and the journal already knows it.

const PAYERS = 2000;
const LATENCY_MS = 50;
/**
 * A first run of new payers, the gate known, whose signatures the team did not collect: create compliance alone.
 * The agreement is the payer's to sign, and the bank account waits for KYC.
 */
const FIRST_RUN_REQUESTS = 1;

/** Runs one payer against the sandbox in `state`, so that the journal learns the service gates bank accounts. */
async function learnGate(sandbox: SandboxHandle, state: string): Promise<void> {
  const one = await input(1, 'gate');
  const { summary } = await runAgainst(sandbox, one, { rate: 0 }, undefined, state);
  if (summary.rows.waiting !== 1 || sandbox.stats().kycRefusals !== 1)
    throw new Error('bench: the gate was not learned (the first payer did not wait on KYC)');
}

/** A first run of 2,000 new payers at `--rate rate`, the service capping the key at the same rate. */
async function firstRunAtCap(rate: number): Promise<Figure[]> {
  const file = await input(PAYERS, `cap${rate}`, false);
  const state = join(SCRATCH, 'state', `cap${rate}-${Date.now()}`);
  return withSandbox({ latencyMs: LATENCY_MS, kycAfter: undefined, rateLimit: rate }, async (sandbox) => {
    await learnGate(sandbox, state);
    const before = sandbox.stats();
    const { summary } = await runAgainst(sandbox, file, { rate, concurrency: 8 }, undefined, state);
    rmSync(state, { recursive: true, force: true });
    const after = sandbox.stats();
    const requests = after.requests - before.requests;
    const perPayer = requests / PAYERS;
    const perHour = PAYERS / (summary.durationMs / 3_600_000);
    const limit = (rate * 3600) / FIRST_RUN_REQUESTS;
    const waiting = summary.rows.waiting ?? 0;
    return [
      {
        scenario: 'rate-cap',
        name: `${PAYERS.toLocaleString('en-US')} new payers at --rate ${rate} (the service capped at ${rate}/s, ${LATENCY_MS} ms latency, the gate known): payers registered per hour`,
        value: perHour,
        unit: 'payers/h',
        bar: `>= ${(0.95 * limit).toLocaleString('en-US')}`,
        pass: perHour >= 0.95 * limit && waiting === PAYERS,
        note: `${(perHour / limit).toFixed(3)} of the limit ${limit.toLocaleString('en-US')} (${rate} x 3600 / ${FIRST_RUN_REQUESTS}); ${(summary.durationMs / 1000).toFixed(0)} s; ${waiting} rows waiting; ${after.rateLimited - before.rateLimited} answered 429`,
      },
      {
        scenario: 'rate-cap',
        name: `the same run: requests per payer`,
        value: perPayer,
        unit: 'req/payer',
        bar: `<= ${FIRST_RUN_REQUESTS + 0.05}`,
        pass: perPayer <= FIRST_RUN_REQUESTS + 0.05,
        note: `${requests} requests: ${after.byRoute.compliance - before.byRoute.compliance} create compliance, ${after.byRoute.agreement - before.byRoute.agreement} agreement, ${after.reads - before.reads} reads (${after.readsNotFound - before.readsNotFound} answered 404), ${after.kycRefusals - before.kycRefusals} bank accounts refused`,
      },
    ];
  });
}

/**
 * The whole lifecycle of 2,000 payers with a bank account each: registered, half approved and attached, the rest
 * approved and attached, then `status`. No cap (the count of requests does not depend on it).
 */
async function lifecycle(): Promise<Figure[]> {
  const file = await input(PAYERS, 'life');
  const state = join(SCRATCH, 'state', `life-${Date.now()}`);
  return withSandbox({ latencyMs: LATENCY_MS, kycAfter: undefined, accountApproveMs: 0 }, async (sandbox) => {
    await learnGate(sandbox, state);
    const start = sandbox.stats().requests;
    const run = () => runAgainst(sandbox, file, { rate: 0, concurrency: 16 }, undefined, state);
    const id = (i: number) => `life-${String(i + 1).padStart(7, '0')}`;
    await run();
    for (let i = 0; i < PAYERS / 2; i++) sandbox.setKyc(id(i), 'approved');
    await run();
    for (let i = PAYERS / 2; i < PAYERS; i++) sandbox.setKyc(id(i), 'approved');
    const last = await run();
    const runs = sandbox.stats().requests - start;
    const out = join(SCRATCH, 'out', `life-status-${Date.now()}`);
    const args = ['status', file, '--base-url', sandbox.url, '--out', out, '--state-dir', state, '--json'];
    args.push('--no-progress', '--log-level', 'warn', '--rate', '0', '--concurrency', '16');
    const f = await runCli(args, { PAYER_API_KEY: API_KEY });
    rmSync(out, { recursive: true, force: true });
    rmSync(state, { recursive: true, force: true });
    const status = JSON.parse(f.stdout) as { payers: { payable: number } };
    const all = sandbox.stats();
    const statusReads = all.requests - start - runs;
    // Rechecks: every payer once on the second run, the half still waiting once more on the third.
    const rechecks = 1.5;
    const perPayer = runs / PAYERS;
    return [
      {
        scenario: 'rate-cap',
        name: `lifecycle of ${PAYERS.toLocaleString('en-US')} payers with a bank account (register, half approved and attached, the rest approved and attached): requests per payer`,
        value: perPayer,
        unit: 'req/payer',
        bar: `<= ${4 + rechecks} (4 + ${rechecks} rechecks)`,
        pass: perPayer <= 4 + rechecks && allOk(last.summary) && all.paymentDetailsCreated === PAYERS,
        note: `${runs} requests; ${all.paymentDetailsCreated} bank accounts created, ${all.duplicatePaymentDetails} twice; ${all.reads} reads in all`,
      },
      {
        scenario: 'rate-cap',
        name: '`status` of the same payers once payable: requests per payer',
        value: statusReads / PAYERS,
        unit: 'req/payer',
        bar: '<= 2',
        pass: statusReads <= 2 * PAYERS && status.payers.payable === PAYERS,
        note: `${status.payers.payable} payable`,
      },
    ];
  });
}

export async function rateCap(): Promise<Figure[]> {
  return [...(await firstRunAtCap(5)), ...(await firstRunAtCap(20)), ...(await lifecycle())];
}
