import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { parse } from 'csv-parse/sync';
import { makeRunId } from '../pipeline/RunSession.js';
import { packageRoot } from '../core/packageRoot.js';
import { run } from '../pipeline/run.js';
import type { Summary } from '../output/results.js';
import { startSandbox } from '../sandbox/index.js';
import type { CommandBody } from './CliCommand.js';

const FIXTURES = join(packageRoot(), 'fixtures');

/** Share of registered payers whose KYC the demo approves between the two runs, as people would over days. */
const APPROVED_SHARE = 0.6;

/**
 * What `npm start` runs: onboarding as the real service works it, in under a minute, against a built-in sandbox that
 * behaves like the service (bank accounts refused until the payer's KYC is approved). A first run registers every
 * payer and hands out the links, with bank accounts waiting; the sandbox then approves some payers' KYC; a second
 * run of the same files attaches their accounts and creates nothing twice; `status` then tells who can be paid.
 * `--rate 20` so the bar moves as in a real run. Some example rows are invalid on purpose, so a real run of these files
 * ends 1; the demo says so, and itself ends 0 when it went as designed: a first command that fails reads as a broken
 * project to a newcomer, to CI and to npm. Anything else (a run aborted, an account created twice) is its exit code.
 */
export const demoCommand: CommandBody = {
  builder: (yargs) => yargs,
  handler: async (_argv, io) => {
    const inputs = [join(FIXTURES, 'payers.csv'), join(FIXTURES, 'payers.jsonl')];
    const key = `demo-${makeRunId(new Date())}`;
    const sandbox = await startSandbox({ port: 0, apiKey: key, rateLimit: 20 });
    // The journal of a sandbox that is gone when the demo ends is worth nothing afterwards.
    const stateDir = mkdtempSync(join(tmpdir(), 'payer-onboard-demo-'));
    const say = (text: string) => io.stderr.write(`\ndemo: ${text}\n`);
    try {
      const options = { inputs, baseUrl: sandbox.url, stateDir, rate: 20, concurrency: 8 };
      // The run locks live in the user's state folder; the demo's sandbox dies with it, so its locks stay in its own.
      const env = { PAYER_API_KEY: key, XDG_STATE_HOME: stateDir };
      // `sandbox`: the report's command to run the failed rows again starts a sandbox, not this one, gone by then.
      const context = { cwd: io.cwd, env, stderr: io.stderr, signal: io.signal, sandbox: true };
      say(
        `first run of ${inputs.map((p) => relative(io.cwd, p)).join(' and ')}: payers are registered and get their links; bank accounts wait for KYC`,
      );
      const first = await run(options, context);
      if (first.exitCode === 3) return 3;

      const registered = waitingIds(first.outputs.results);
      const approved = registered.slice(0, Math.ceil(registered.length * APPROVED_SHARE));
      for (const id of approved) sandbox.setKyc(id, 'approved');
      say(
        `${approved.length} of ${registered.length} payers have passed KYC since (the sandbox approves them as people would, over days); the same files again:`,
      );
      const second = await run(options, context);
      if (second.exitCode === 3) return 3;

      const stats = sandbox.stats();
      say(
        `${stats.payersCreated} payers and ${stats.paymentDetailsCreated} bank accounts stored, ${stats.duplicatePaymentDetails} created twice. ` +
          `Results in ${relative(io.cwd, second.outputs.dir) || '.'}/: the payers still waiting are in its pending-* files, and any later run of the ` +
          'same files (by hand, or nightly from cron) finishes them; the invalid rows are on purpose: see its failed-* files.',
      );
      say('and the question of every morning after: who can be paid now, and whom to chase? (status reads only)');
      const { runStatus } = await import('../status/runStatus.js');
      const status = await runStatus(options, context);
      const worst = Math.max(first.exitCode, second.exitCode, status.exitCode);
      if (worst > 1) return worst;
      if (stats.duplicatePaymentDetails > 0) {
        say(`not as designed: ${stats.duplicatePaymentDetails} bank accounts were created twice`);
        return 1;
      }
      say(demoEnd(second));
      return 0;
    } finally {
      await sandbox.close();
      rmSync(stateDir, { recursive: true, force: true });
    }
  },
};

/** What the demo ends with: what a real run of these rows would exit with, and why, then why the demo exits 0. */
function demoEnd(run: Summary): string {
  const { invalid, failed, skipped } = run.rows;
  const why =
    run.exitCode === 0
      ? 'every row is ok or waiting on its payer'
      : `${[
          ...(invalid > 0 ? [`${invalid} rows are invalid (on purpose: the example has mistakes to find)`] : []),
          ...(failed > 0 ? [`${failed} failed`] : []),
          ...(skipped > 0 ? [`${skipped} were not attempted`] : []),
        ].join(', ')}, and 1 means "finished, some rows to fix": their failed-* files say what to fix`;
  return `a real run of these rows would exit ${run.exitCode}: ${why}. The demo ran as designed, so it exits 0.`;
}

/** The payers the first run left waiting, from its results.csv (one per payer: bank rows share their payer's id). */
function waitingIds(resultsPath: string): string[] {
  const rows = parse(readFileSync(resultsPath, 'utf8'), { columns: true }) as Array<{
    clientUserId: string;
    outcome: string;
  }>;
  return [...new Set(rows.filter((r) => r.outcome === 'waiting').map((r) => r.clientUserId))];
}
