import { randomBytes } from 'node:crypto';
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Writable } from 'node:stream';
import { parse } from 'csv-parse/sync';
import { packageRoot } from '../core/packageRoot.js';
import type { FileOutcome } from '../inbox/processFile.js';
import { SERVE_OPTIONS } from '../options/serveOptions.js';
import type { Summary } from '../output/results.js';
import { makeRunId, type RunContext } from '../pipeline/RunSession.js';
import { run } from '../pipeline/run.js';
import { type SandboxHandle, startSandbox } from '../sandbox/index.js';
import type { ServeHandle } from '../serve/runServe.js';
import type { CommandBody } from './CliCommand.js';
import { freePort, linksFor, openPage, pageText, signOnPage } from './demoPayers.js';

const FIXTURES = join(packageRoot(), 'fixtures');

/** Share of registered payers whose KYC the demo approves once serve waits on them, as people would over days. */
const APPROVED_SHARE = 0.6;

/**
 * How long the demo waits on serve (to take the files, then to finish the approved payers) before it says it did not
 * go as designed. Only a broken demo reaches it: serve moves within a second or two of the webhooks.
 */
const SERVE_LIMIT_MS = 30_000;

/**
 * What `npm start` runs: onboarding as the real service works it, in under a minute, against a built-in sandbox that
 * behaves like the service (bank accounts refused until the payer's KYC is approved). A first run registers every
 * payer and hands out the links, with bank accounts waiting; `serve` then takes the run's pending files into its
 * inbox, the sandbox approves some payers' KYC and tells serve with signed webhooks, and serve attaches their accounts
 * at once, with no second run; `status` then tells who can be paid. `--rate 20` so the bar moves as in a real run.
 * Some example rows are invalid on purpose, so a real run of these files ends 1; the demo says so, and itself ends 0
 * when it went as designed: a first command that fails reads as a broken project to a newcomer, to CI and to npm.
 * Anything else (a run aborted, serve stuck, an account created twice) is its exit code.
 */
export const demoCommand: CommandBody = {
  builder: (yargs) => yargs,
  handler: async (_argv, io) => {
    const inputs = [join(FIXTURES, 'payers.csv'), join(FIXTURES, 'payers.jsonl')];
    const key = `demo-${makeRunId(new Date())}`;
    // The sandbox signs with the secret from the start; where it delivers is registered once serve listens.
    const secret = randomBytes(24).toString('hex');
    // accountApproveMs 0: the provider's check of an account passes at once, so status counts every account serve
    // attached as payable, the same on every run, rather than as many as the clock let pass.
    const sandbox = await startSandbox({
      port: 0,
      apiKey: key,
      // The service's cap a little above the demo's --rate 20: on a busy machine a late timer can put a 21st request
      // in one of the sandbox's seconds, and a 429 in a newcomer's first run reads as something wrong.
      rateLimit: 25,
      accountApproveMs: 0,
      webhookSecret: secret,
    });
    // The journal and the inbox of a sandbox that is gone when the demo ends are worth nothing afterwards.
    const temp = mkdtempSync(join(tmpdir(), 'payer-onboard-demo-'));
    const stateDir = join(temp, 'state');
    const say = (text: string) => io.stderr.write(`\ndemo: ${text}\n`);
    const serving: { handle?: ServeHandle } = {};
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

      const { inputs: _, ...runInput } = options;
      const loop = { sandbox, first, secret, inbox: join(temp, 'inbox'), runInput, context, say, serving };
      const served = await serveLoop(loop);
      if (served !== 0) return served;

      const stats = sandbox.stats();
      say(
        `${stats.payersCreated} payers and ${stats.paymentDetailsCreated} bank accounts stored, ${stats.duplicatePaymentDetails} created twice. ` +
          `Results in ${relative(io.cwd, first.outputs.dir) || '.'}/: the first run's files (the invalid rows are on purpose: see its ` +
          "failed-* files), and serve's inbox as it left it in serve-inbox/: each of its runs in results/, the last pending-* files the rows still waiting on their payers.",
      );
      say('and the question of every morning after: who can be paid now, and whom to chase? (status reads only)');
      const { runStatus } = await import('../status/runStatus.js');
      const status = await runStatus(options, context);
      const worst = Math.max(first.exitCode, status.exitCode);
      if (worst > 1) return worst;
      if (stats.duplicatePaymentDetails > 0) {
        say(`not as designed: ${stats.duplicatePaymentDetails} bank accounts were created twice`);
        return 1;
      }
      say(demoEnd(first));
      return 0;
    } finally {
      await serving.handle?.close();
      await sandbox.close();
      rmSync(temp, { recursive: true, force: true });
    }
  },
};

interface ServeLoop {
  sandbox: SandboxHandle;
  first: Summary;
  secret: string;
  inbox: string;
  runInput: { baseUrl: string; stateDir: string; rate: number; concurrency: number };
  context: RunContext & { signal: AbortSignal; stderr: NodeJS.WritableStream };
  say: (text: string) => void;
  /** Where the handle goes as soon as serve is up, so that the demo closes it whatever happens next. */
  serving: { handle?: ServeHandle };
}

/**
 * serve in this process over an inbox in the demo's temp folder: the first run's pending files dropped into its
 * incoming/ (how payers from a run join serve), their rows kept waiting in the store; then the approvals, and serve attaching the
 * accounts on the webhooks. Ends with serve closed and its inbox copied beside the first run's results. 0 when it
 * went as designed, else the exit code.
 */
async function serveLoop(loop: ServeLoop): Promise<number> {
  const { sandbox, first, context, say } = loop;
  mkdirSync(loop.inbox);
  const files = new ServedFiles();
  const { startServe } = await import('../serve/runServe.js');
  // Its own lines (one a file it takes) but not each run's summary: the demo says what they add up to.
  const stderr = onlyLines(context.stderr, (line) => line.startsWith('inbox: '));
  // settle 0: the demo writes each file whole before serve can look. Its public address: the payers' pages.
  const port = await freePort();
  const serveOptions = {
    inbox: loop.inbox,
    port,
    publicUrl: `http://127.0.0.1:${port}`,
    webhookSecret: loop.secret,
    settle: 0,
    run: loop.runInput,
  };
  const handle = await startServe({ ...serveOptions, onFile: files.add }, { ...context, stderr });
  loop.serving.handle = handle;
  // As the service's portal is told a URL: serve listens on a port of the system's choosing.
  sandbox.setWebhookUrl(`${handle.url}${SERVE_OPTIONS.webhookPath.default}`);
  const stop = AbortSignal.any([context.signal, whenClosed(handle)]);
  const names = first.outputs.pending.map((path) => basename(path));
  say(
    `serve starts: it takes the service's webhooks and runs an inbox folder. The first run's ${names.join(' and ')} are dropped into its incoming/ (how payers onboarded by a run join serve), and it keeps their rows waiting in its store:`,
  );
  for (const path of first.outputs.pending) copyFileSync(path, join(loop.inbox, 'incoming', basename(path)));
  const taken = () => names.every((name) => files.outcomes.some((o) => o.file === name));
  if (!(await files.until(taken, stop))) return notServed(loop, handle, 'take the pending files');
  const dropped = files.outcomes.filter((o) => names.includes(o.file) && o.folder !== 'done');
  if (dropped.length > 0) return notServed(loop, handle, "keep every pending file's rows waiting");

  const registered = waitingIds(first.outputs.results);
  const approved = registered.slice(0, Math.ceil(registered.length * APPROVED_SHARE));
  if (!(await payersSign(loop, files, serveOptions.publicUrl, approved, stop)))
    return notServed(loop, handle, "record the payers' signatures with the service");
  const approvedAt = performance.now();
  for (const id of approved) sandbox.setKyc(id, 'approved');
  say(
    `${approved.length} of ${registered.length} payers pass KYC now (the sandbox approves them as people would, over days) and the service tells serve, with a signed webhook each:`,
  );
  // Each approved payer's rows run by serve since, whatever came of them: the accounts are then the service's answer.
  const ran = new Set<string>();
  let read = files.outcomes.length;
  const finished = () => {
    for (; read < files.outcomes.length; read += 1) for (const id of payersRun(files.outcomes[read]!)) ran.add(id);
    return approved.every((id) => ran.has(id));
  };
  if (!(await files.until(finished, stop))) return notServed(loop, handle, "finish the approved payers' rows");
  const seconds = ((performance.now() - approvedAt) / 1000).toFixed(1);
  const attached = approved.filter((id) => (sandbox.payer(id)?.paymentDetails.length ?? 0) > 0).length;
  const others = approved.length - attached;
  say(
    `serve attached ${attached} bank accounts ${seconds} s after the approvals, with no re-run of the files.` +
      (others > 0
        ? ` (Of the ${approved.length} approved payers, the other ${others} gave no bank account or have an agreement to sign: status says which.)`
        : ''),
  );
  await handle.close();
  // The inbox goes with the demo's temp folder; a copy stays beside the first run's results, for a look at it.
  cpSync(loop.inbox, join(first.outputs.dir, 'serve-inbox'), {
    recursive: true,
    filter: (p) => basename(p) !== 'lock',
  });
  return 0;
}

/**
 * The payers act for themselves: each has a page of their own on serve (one is shown), and those about to pass KYC
 * open theirs and sign the agreement in the service's frame. serve records each signature and runs the payer's
 * waiting rows, which send the agreement; false when that did not happen in time.
 */
async function payersSign(
  loop: ServeLoop,
  files: ServedFiles,
  publicUrl: string,
  ids: readonly string[],
  stop: AbortSignal,
): Promise<boolean> {
  const { sandbox, say } = loop;
  const signers = ids.filter((id) => sandbox.payer(id)?.agreementCompleted === false);
  const links = await linksFor(loop.runInput.stateDir, publicUrl, signers);
  const [shown] = signers;
  if (shown === undefined) return true;
  const page = await openPage(links.get(shown)!);
  say(
    `each payer has a page of their own on serve, reached by a personal link (serve's invitations e-mail it; \`payer-onboard link new ID\` makes one). ${shown}'s page says:`,
  );
  loop.context.stderr.write(
    `${pageText(page.html)
      .map((line) => `    ${line}`)
      .join('\n')}\n`,
  );
  say(
    `${signers.length} payers open their link and sign the agreement in the service's frame (the sandbox's agreement page); serve records each signature and sends the agreement to the service:`,
  );
  await signOnPage(page);
  for (const id of signers.slice(1)) await signOnPage(await openPage(links.get(id)!));
  return files.until(() => signers.every((id) => sandbox.payer(id)?.agreementCompleted === true), stop);
}

/** Why serve did not get there: interrupted (3), serve failed (3), or it took far longer than it ever does (1). */
function notServed(loop: ServeLoop, handle: ServeHandle, what: string): number {
  if (loop.context.signal.aborted) return 3;
  const failure = handle.failure();
  loop.say(
    `not as designed: serve did not ${what} ${failure ? `(${failure.message})` : `within ${SERVE_LIMIT_MS / 1000} s`}`,
  );
  return failure ? 3 : 1;
}

/**
 * The files serve ran, as its onFile callback reports them; `until` resolves true once a condition on them holds,
 * looked at after each, or false when the signal aborts or the limit passes.
 */
class ServedFiles {
  readonly outcomes: FileOutcome[] = [];
  private look: (() => void) | undefined;

  readonly add = (outcome: FileOutcome): void => {
    this.outcomes.push(outcome);
    this.look?.();
  };

  until(done: () => boolean, signal: AbortSignal): Promise<boolean> {
    const stop = AbortSignal.any([signal, AbortSignal.timeout(SERVE_LIMIT_MS)]);
    return new Promise((resolve) => {
      const finish = (ok: boolean) => {
        this.look = undefined;
        stop.removeEventListener('abort', giveUp);
        resolve(ok);
      };
      const giveUp = () => finish(false);
      if (stop.aborted) return giveUp();
      stop.addEventListener('abort', giveUp, { once: true });
      this.look = () => done() && finish(true);
      this.look();
    });
  }
}

/** A signal aborted once serve has stopped (interrupted, or its worker failed): nothing more will come of it. */
function whenClosed(handle: ServeHandle): AbortSignal {
  const closed = new AbortController();
  const abort = () => closed.abort();
  void handle.closed.then(abort, abort);
  return closed.signal;
}

/** The payers a run of serve's sent rows for (the rows of the others are `skipped`), from its results.csv. */
function payersRun(outcome: FileOutcome): string[] {
  if (outcome.summary === undefined) return [];
  return readResults(outcome.summary.outputs.results)
    .filter((r) => r.outcome !== 'skipped')
    .map((r) => r.clientUserId);
}

/** A stream that passes on the whole lines `keep` says yes to. */
function onlyLines(to: NodeJS.WritableStream, keep: (line: string) => boolean): NodeJS.WritableStream {
  let rest = '';
  return new Writable({
    write(chunk, _encoding, done) {
      const lines = (rest + String(chunk)).split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) if (keep(line)) to.write(`${line}\n`);
      done();
    },
  });
}

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

function readResults(path: string): Array<{ clientUserId: string; outcome: string }> {
  return parse(readFileSync(path, 'utf8'), { columns: true });
}

/** The payers the first run left waiting, from its results.csv (one per payer: bank rows share their payer's id). */
function waitingIds(resultsPath: string): string[] {
  const rows = readResults(resultsPath);
  return [...new Set(rows.filter((r) => r.outcome === 'waiting').map((r) => r.clientUserId))];
}
