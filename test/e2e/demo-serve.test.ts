import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { demoCommand } from '../../src/commands/demoCommand.js';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { memoryStream } from '../helpers/runHarness.js';
import { tempDir } from '../helpers/tempDir.js';

// The demo in this process, its sandbox kept hold of: what the service holds at the end is what the test checks, not
// only what the demo says about it.
const sandboxes: SandboxHandle[] = [];
const registered: string[] = [];
vi.mock('../../src/sandbox/index.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/sandbox/index.js')>();
  return {
    ...real,
    startSandbox: async (...args: Parameters<typeof real.startSandbox>) => {
      const sandbox = await real.startSandbox(...args);
      sandboxes.push(sandbox);
      // Where the demo registers serve (it listens on a port of the system's choosing): the test looks there after.
      const register = sandbox.setWebhookUrl;
      sandbox.setWebhookUrl = (url) => {
        registered.push(url);
        register(url);
      };
      return sandbox;
    },
  };
});

let tmp: ReturnType<typeof tempDir>;
let tmpBefore: string | undefined;
beforeEach(() => {
  tmp = tempDir();
  sandboxes.length = 0;
  registered.length = 0;
  // The demo's temp folder, serve's inbox and journal included, in one of the test's own: what is left is seen.
  tmpBefore = process.env.TMPDIR;
  process.env.TMPDIR = join(tmp.dir, 'system-tmp');
  mkdirSync(process.env.TMPDIR);
});
afterEach(() => {
  if (tmpBefore === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = tmpBefore;
  tmp.remove();
});

/** Runs the demo with its stderr in memory; `onText` sees the text so far after each write, and may abort the demo. */
async function demo(onText: (text: string, abort: () => void) => void = () => {}) {
  const cwd = join(tmp.dir, 'cwd');
  mkdirSync(cwd);
  const controller = new AbortController();
  const err = memoryStream();
  const stderr = {
    ...err.stream,
    write: (chunk: string) => {
      err.stream.write(chunk);
      onText(err.text(), () => controller.abort());
      return true;
    },
  } as typeof err.stream;
  const io = { stdout: memoryStream().stream, stderr, env: {}, cwd, signal: controller.signal };
  const code = await demoCommand.handler({}, io);
  const sandbox = sandboxes[0]!;
  const servePort = Number(new URL(registered[0]!).port);
  return { code, stderr: err.text(), cwd, sandbox, servePort };
}

/** Whether anything still answers at a loopback URL (serve and the sandbox must both be gone). */
async function answers(url: string): Promise<boolean> {
  return fetch(url).then(
    () => true,
    () => false,
  );
}

async function nothingLeft(r: Awaited<ReturnType<typeof demo>>) {
  expect(readdirSync(join(tmp.dir, 'system-tmp'))).toEqual([]);
  expect(await answers(`http://127.0.0.1:${r.servePort}/healthz`)).toBe(false);
  expect(await answers(`${r.sandbox.url}/__sandbox/stats`)).toBe(false);
}

describe('npm start: the demo with serve in place of a second run', () => {
  it("attaches every approved payer's bank account exactly once through serve's webhooks, and leaves nothing behind", async () => {
    const r = await demo();
    expect(r.code, r.stderr).toBe(0);

    // The first run's results say which payers gave a bank account; the sandbox, whom it approved and what it holds.
    const results = join(r.cwd, 'payer-onboard-results');
    const first = readdirSync(results).find((dir) => existsSync(join(results, dir, 'serve-inbox')))!;
    const rows = parse(readFileSync(join(results, first, 'results.csv'), 'utf8'), { columns: true }) as Array<{
      clientUserId: string;
      steps: string;
    }>;
    const withBank = new Set(
      rows.filter((row) => row.steps.includes('payment-details=')).map((row) => row.clientUserId),
    );
    const payers = [...new Set(rows.map((row) => row.clientUserId))].flatMap((id) => r.sandbox.payer(id) ?? []);
    const approved = payers.filter((p) => p.kycStatus === 'approved');
    const payable = approved.filter((p) => p.agreementStatus === 'completed' && withBank.has(p.clientUserId));
    expect(approved.length).toBeGreaterThan(0);
    expect(payable.length).toBeGreaterThan(0);
    for (const p of payers)
      expect([p.clientUserId, p.paymentDetails.length]).toEqual([p.clientUserId, payable.includes(p) ? 1 : 0]);
    expect(r.sandbox.stats()).toMatchObject({ duplicatePaymentDetails: 0, paymentDetailsCreated: payable.length });

    // serve did it, told by the webhooks: one run of the files, none again, and the demo says so.
    expect(r.sandbox.stats().webhooksSent).toBeGreaterThanOrEqual(approved.length);
    expect(r.stderr.match(/^payer-onboard run: /gm)).toHaveLength(1);
    expect(r.stderr).toMatch(
      new RegExp(
        `\\ndemo: serve attached ${payable.length} bank accounts [\\d.]+ s after the approvals, with no re-run`,
      ),
    );
    expect(r.stderr).toContain(`, 0 created twice. Results in payer-onboard-results/${first}/: `);

    // The payers act for themselves: one's own page is shown, and the approved ones signed there, in the service's
    // frame: none of their agreements was completed by the tool on its own.
    expect(r.stderr).toMatch(/\ndemo: each payer has a page of their own on serve.*'s page says:\n {4}Hello \w+\n/);
    expect(r.stderr).toMatch(/\ndemo: \d+ payers open their link and sign the agreement in the service's frame/);
    expect(approved.every((p) => p.agreementStatus === 'completed')).toBe(true);
    expect(
      payers.filter((p) => p.kycStatus !== 'approved' && p.agreementStatus === 'completed').length,
    ).toBeLessThanOrEqual(1);

    // The folder the demo points to is there, with serve's inbox as serve left it; the rest is gone.
    const inbox = join(results, first, 'serve-inbox');
    expect(readdirSync(join(inbox, 'results')).length).toBeGreaterThan(0);
    expect(existsSync(join(inbox, 'lock'))).toBe(false);
    await nothingLeft(r);
  });

  it('interrupted while serve waits on the approvals: exits 3, with serve and the sandbox closed and no temp folder left', async () => {
    // Ctrl-C as the approvals are announced: serve has the waiting rows and webhooks are on their way.
    const r = await demo((text, abort) => {
      if (text.includes('pass KYC now')) abort();
    });
    expect(r.code).toBe(3);
    expect(r.stderr).not.toContain('serve attached');
    await nothingLeft(r);
  });
});
