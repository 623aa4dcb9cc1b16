import { randomBytes } from 'node:crypto';
import { chmodSync, lstatSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Logger } from 'pino';
import type { Readers } from '../core/advice.js';
import { AbortedError, PayerOnboardError, ConfigError } from '../core/errors.js';
import type { ApiClient, StopInfo } from '../execute/ApiClient.js';
import type { createApiClient } from '../execute/createApiClient.js';
import type { Backoff } from '../execute/retryPolicy.js';
import type { BlockNews, BlockTiming } from '../execute/ServiceBlock.js';
import type { HeldJournal } from '../journal/holdJournal.js';
import type { Journal } from '../journal/Journal.js';
import type { RunActor } from '../journal/RunAudit.js';
import { forgetJournal, type JournalPlace, openJournal } from '../journal/openJournal.js';
import type { UserPlaces } from '../journal/stateDir.js';
import { createLogger } from './log.js';
import type { RunOptions } from '../options/resolve.js';
import { CsvFileWriter } from '../output/CsvFileWriter.js';
import { Progress } from '../output/Progress.js';
import { RequestTimeline } from '../report/collectReportData.js';
import { startSandbox } from '../sandbox/index.js';

/** Where a command's files go: the folder, and each file in it (failed and pending files are added as written). */
export interface RunOutputs {
  dir: string;
  results: string;
  failed: string[];
  pending: string[];
  summary: string;
  report: string;
  log: string;
}

/** Where a command writes and what it listens to; all optional, so a library caller passes nothing. */
export interface RunContext {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /**
   * The user's home, where the default state dir and the run locks live (`~/.local/state/payer-onboard`, unless
   * `XDG_STATE_HOME` in env says otherwise). Default: env's HOME, else the process's home.
   */
  home?: string;
  /** Human summary, warnings and the progress bar. */
  stderr?: NodeJS.WritableStream & { isTTY?: boolean };
  /** Aborting it stops reading, lets calls in flight finish and writes everything (exit 3). */
  signal?: AbortSignal;
  /** Use this run id instead of a new one (the inbox names the output folder after it before the run starts). */
  runId?: string;
  /** Retry delays (default 0.5 s, doubling, at most 30 s); tests against a flaky sandbox shorten them. */
  backoff?: Backoff;
  /** When nothing but 429s is the service's block (30 s), and how often it is probed (1 min); tests shorten them. */
  blockTiming?: Partial<Omit<BlockTiming, 'maxWaitMs'>>;
  /**
   * The base URL is a sandbox the caller started and stops (the demo's): as with `--sandbox`, its address is not
   * kept, since it dies with the caller, and the report's command to run again starts a sandbox of its own.
   */
  sandbox?: boolean;
  /**
   * What holds the service and key while the run sends, as a second process is told: `serve` for the runs of serve
   * (a person is told to stop serve, not to wait for it), else the run itself.
   */
  holder?: 'serve';
  /**
   * The service and key held already by the caller for as long as it works (serve's worker, for a pass): the run
   * writes through it and leaves it held.
   */
  held?: HeldJournal;
  /**
   * Who reads what the run says of its files and rows (the advice in its errors and warnings): a terminal by default;
   * the web page for the check of an upload; the inbox for the files it runs.
   */
  readers?: Readers;
  /**
   * Who runs it, as the run's lines in the audit trail name them: the OS user and host (`os:USER@HOST`) for the
   * command line, the inbox and serve. Absent: `unknown`.
   */
  actor?: RunActor;
}

/** The working directory, environment and home a command goes by: its context's, else the process's own. */
export function placesOf(context: RunContext): UserPlaces {
  const env = context.env ?? {};
  return { cwd: context.cwd ?? process.cwd(), env, home: context.home ?? env.HOME ?? homedir() };
}

export interface SessionSpec {
  runId: string;
  options: RunOptions;
  cwd: string;
  /** Where to send and with which key (and where it came from); absent for a command that sends nothing (validate). */
  connection: { baseUrl: string; apiKey: string; keyAdvice?: string } | undefined;
  /** The results file in the output folder, one line per row (or payer): `results.csv`, or `status.csv` for status. */
  results: { name: string; columns: readonly string[] };
  /** The journal to keep (a run against a real API, holding its lock); a rehearsal's sandbox dies with it. */
  journal?: JournalPlace;
  /** Collected for summary.json; journal problems are added. */
  warnings: string[];
  /** Where it writes (stderr), what stops it (signal), and its retry delays. */
  context: RunContext;
  /**
   * The client's maker, for a command that always calls the API and so loads got with its own module. Otherwise got
   * is loaded here, only once a command is sure to send: validate and --dry-run never pay its memory.
   */
  createClient?: typeof createApiClient;
}

/**
 * What one command owns while it talks to the API: the output folder, its results file and log, the sandbox of a
 * rehearsal, the journal, the client (with its limiter and retries) and the attempts-per-second timeline. It also owns how the
 * command stops: an interrupt, a journal or output write that fails, a key the service refuses all end in
 * `stopped()`, and `close()` releases everything in reverse order, whatever happened.
 */
export class RunSession {
  private readonly cleanup: Array<() => void | Promise<void>> = [];
  private writeFailure: string | undefined;
  private resultsClosed = false;
  private closeLog: (() => Promise<void>) | undefined;
  /** The journal, when this command started it: a key the service never accepted leaves none behind. */
  private newJournal: JournalPlace | undefined;

  private constructor(
    readonly outputs: RunOutputs,
    readonly logger: Logger,
    readonly baseUrl: string | undefined,
    readonly sandboxed: boolean,
    readonly client: ApiClient | undefined,
    readonly journal: Journal | undefined,
    /** Attempts per second, for report.html's chart: fed by the client's onAttempt. */
    readonly timeline: RequestTimeline,
    /** The results file, written as rows finish. */
    readonly results: CsvFileWriter,
    private readonly signal: AbortSignal | undefined,
  ) {}

  static async open(spec: SessionSpec): Promise<RunSession> {
    const { options, cwd, connection } = spec;
    const opened: Array<() => void | Promise<void>> = [];
    try {
      const sandbox =
        connection && options.sandbox ? await startSandbox({ port: 0, apiKey: connection.apiKey }) : undefined;
      if (sandbox) opened.push(() => sandbox.close());
      const baseUrl = sandbox?.url ?? connection?.baseUrl;

      const dir = resolve(cwd, options.out ?? join('payer-onboard-results', spec.runId));
      checkWritable(dir);
      const outputs: RunOutputs = {
        dir,
        results: join(dir, spec.results.name),
        failed: [],
        pending: [],
        summary: join(dir, 'summary.json'),
        report: join(dir, 'report.html'),
        log: resolve(cwd, options.logFile ?? join(dir, 'run.log')),
      };
      // The session does not exist yet when the log opens (SonicBoom opens it asynchronously): its failure waits here.
      let onLogFailure: (error: Error) => void = (error) => {
        logFailure ??= error;
      };
      let logFailure: Error | undefined;
      const log = createLogger(outputs.log, options.logLevel, (error) => onLogFailure(error));

      const opening = spec.journal && (await openJournal(spec.journal, spec.warnings, log.logger, spec.context.stderr));
      const journal = opening?.journal;
      if (journal) opened.push(() => journal.close());

      const timeline = new RequestTimeline();
      const create = connection && baseUrl && (spec.createClient ?? (await loadClient()));
      const client =
        create && baseUrl && connection
          ? create({
              baseUrl,
              compliancePath: options.compliancePath,
              apiKey: connection.apiKey,
              ...(connection.keyAdvice === undefined ? {} : { keyAdvice: connection.keyAdvice }),
              timeoutMs: options.timeout * 1000,
              retries: options.retries,
              // --concurrency counts payers (two round trips per row: compliance, then payment details and agreement
              // together); the pipeline holds that many rows open, so twice as many requests can be in flight.
              concurrency: 2 * options.concurrency,
              rate: options.rate,
              maxConsecutiveFailures: options.maxConsecutiveFailures,
              ...(spec.context.backoff ? { backoff: spec.context.backoff } : {}),
              maxBlockWaitMs: options.maxBlockWait * 60_000,
              ...(spec.context.blockTiming ? { blockTiming: spec.context.blockTiming } : {}),
              onBlock: (news) => sayBlock(news, log.logger, spec.context.stderr),
              logger: log.logger,
              onAttempt: (info) => timeline.record(info),
              onRefused: () => timeline.refused(),
            })
          : undefined;

      const session = new RunSession(
        outputs,
        log.logger,
        baseUrl,
        Boolean(sandbox) || spec.context.sandbox === true,
        client,
        journal,
        timeline,
        new CsvFileWriter(outputs.results, spec.results.columns),
        spec.context.signal,
      );
      session.closeLog = log.close;
      if (opening?.isNew) session.newJournal = spec.journal;
      onLogFailure = (error) => session.onWriteFailure(error, outputs.log);
      if (logFailure) onLogFailure(logFailure);
      session.cleanup.push(...opened, () => session.closeResults());
      if (journal && client) {
        journal.onFailure = (error) =>
          client.stop(
            'write-failed',
            // A server's store says what went wrong in a sentence of its own, which never holds its URL's password.
            error instanceof PayerOnboardError
              ? `stopped: ${error.message}; nothing more is sent`
              : `stopped: the journal in ${journal.location} cannot be written (${error.message}); nothing more is sent. ` +
                  'Free the space and run the same file again: what was sent is read back from the service',
          );
      }
      spec.context.signal?.addEventListener('abort', session.onAbort, { once: true });
      session.cleanup.push(() => spec.context.signal?.removeEventListener('abort', session.onAbort));
      if (spec.context.signal?.aborted) session.onAbort(); // a signal before now fires no event
      return session;
    } catch (error) {
      for (const step of opened.reverse()) await step();
      throw error;
    }
  }

  /** The progress bar over `total` rows (or payers), drawn on stderr when asked or when stderr is a terminal. */
  progress(
    stderr: (NodeJS.WritableStream & { isTTY?: boolean }) | undefined,
    total: ConstructorParameters<typeof Progress>[1],
    enabled: boolean | undefined,
    labels?: ConstructorParameters<typeof Progress>[3],
  ): Progress {
    const progress = new Progress(stderr ?? nullStream, total, enabled ?? Boolean(stderr?.isTTY), labels);
    this.cleanup.push(() => progress.stop());
    return progress;
  }

  /**
   * An output that cannot be written (disk full, permission, I/O error) stops the run: results are its record of what
   * was sent, and the log its account of why. `file` names it where the error does not (a failed write has no path).
   */
  readonly onWriteFailure = (error: Error, file?: string): void => {
    const what = file ?? `the results in ${this.outputs.dir}`;
    this.writeFailure ??= `stopped: ${what} cannot be written (${error.message}); nothing more is sent`;
    this.client?.stop('write-failed', this.writeFailure);
  };

  private readonly onAbort = (): void => this.client?.stop('interrupted');

  /** Flushes and closes the results file; a write that fails stops the command like any other. Once only. */
  async closeResults(): Promise<void> {
    if (this.resultsClosed) return;
    this.resultsClosed = true;
    await this.results.close().catch(this.onWriteFailure);
  }

  /** Why the command stopped before its end, if it did; `unchecked` names what an interrupt left undone. */
  stopped(unchecked: string): StopInfo | undefined {
    const stopped = this.client?.stopped();
    if (stopped) return stopped;
    if (this.writeFailure) return { reason: 'write-failed', message: this.writeFailure };
    if (this.signal?.aborted) return { reason: 'interrupted', message: `interrupted: ${unchecked}` };
    return undefined;
  }

  /** Ends the log, then writes summary.json (mode 0600): a summary that cannot be written stops the command (exit 3). */
  async writeSummary(summary: object): Promise<void> {
    // Nothing is sent any more, and an interrupt from here on would log to the log closed just below.
    this.signal?.removeEventListener('abort', this.onAbort);
    await this.closeLog?.();
    this.closeLog = undefined;
    const path = this.outputs.summary;
    try {
      writeFileSync(path, `${JSON.stringify(summary, null, 2)}\n`, { mode: 0o600 });
      chmodSync(path, 0o600);
    } catch (error) {
      // A full disk takes the file and none of its text: an empty summary would say nothing, no summary says that.
      // Only an empty regular file goes (never what a link points at).
      if (lstatSync(path, { throwIfNoEntry: false })?.isFile() && statSync(path).size === 0)
        rmSync(path, { force: true });
      // What stopped the command first is the news, and the summary that would have said it is gone.
      const stopped = (summary as { aborted?: { message?: string } }).aborted?.message;
      const why = `${path} cannot be written (${(error as Error).message})`;
      throw new AbortedError(stopped === undefined ? why : `${stopped}; and ${why}`, { cause: error });
    }
  }

  /** Releases everything in reverse order of opening: progress bar, signal listener, journal, sandbox, log. */
  async close(): Promise<void> {
    for (const step of this.cleanup.splice(0).reverse()) await step();
    await this.closeLog?.();
    if (this.newJournal !== undefined && this.keyNeverAccepted()) {
      // Nothing it holds is worth keeping: each call it noted was refused. Kept, it would stand for a key that never
      // worked, and the next run with the right key would warn of "a journal of another key".
      await forgetJournal(this.newJournal);
    }
  }

  /**
   * The service refused the key, and every request this command sent got that answer (401 or 403): nothing can have
   * been created with it. A request with no answer (a timeout, a reset) or any other answer leaves it unsure.
   */
  private keyNeverAccepted(): boolean {
    if (this.client?.stopped()?.reason !== 'key-rejected') return false;
    const { requests, byStatus } = this.client.stats();
    const refused = (byStatus['401'] ?? 0) + (byStatus['403'] ?? 0);
    return requests > 0 && refused === requests;
  }
}

/**
 * The output folder, made and tried before anything is sent: a file written and removed again, so a read-only or
 * unwritable folder stops the command with nothing sent (exit 2) rather than after its first answers.
 */
function checkWritable(dir: string): void {
  const probe = join(dir, `.payer-onboard-probe-${process.pid}-${randomBytes(3).toString('hex')}`);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(probe, 'probe\n', { mode: 0o600, flag: 'wx' });
    rmSync(probe);
  } catch (error) {
    try {
      rmSync(probe, { force: true });
    } catch {
      // No folder to remove it from: the error below says so.
    }
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new ConfigError(`the output folder ${dir} cannot be written (${code}): choose another --out`);
  }
}

/** got is loaded only to send: validate and --dry-run keep its memory (a million rows must fit in 200 MB). */
async function loadClient(): Promise<typeof createApiClient> {
  return (await import('../execute/createApiClient.js')).createApiClient;
}

/** When a command ran, as its summary says it: from its start to now. */
export function runSpan(startedAt: Date): { startedAt: string; endedAt: string; durationMs: number } {
  const endedAt = new Date();
  return {
    startedAt: startedAt.toISOString(),
    endedAt: endedAt.toISOString(),
    durationMs: endedAt.getTime() - startedAt.getTime(),
  };
}

/** A run id: the UTC start to the second, and 4 hex digits so two runs started together differ. */
export function makeRunId(at: Date): string {
  const stamp = at
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return `${stamp}-${randomBytes(2).toString('hex')}`;
}

const nullStream = { write: () => true } as unknown as NodeJS.WritableStream;

/** The service's block as the person running it hears of it: that it began, when the next try is, when it gives up. */
function sayBlock(news: BlockNews, logger: Logger, stderr: NodeJS.WritableStream | undefined): void {
  let text: string;
  if (news.kind === 'lifted') text = `the service's block is over after ${duration(news.waitedMs)}; sending again`;
  else {
    const what =
      news.probes === 0
        ? 'the service blocked this key and address for a while (its documents: 5 minutes); waiting'
        : `still blocked after ${news.probes} ${news.probes === 1 ? 'try' : 'tries'}`;
    text = `${what}: next try in ${duration(news.nextProbeInMs)}, giving up in ${duration(news.givesUpInMs)} (--max-block-wait)`;
  }
  if (news.kind === 'lifted') logger.info({ waitedMs: news.waitedMs }, text);
  else logger.warn({ probes: news.probes }, text);
  stderr?.write(`payer-onboard: ${text}\n`);
}

function duration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 90) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  return seconds % 60 === 0 ? `${minutes} min` : `${minutes} min ${seconds % 60} s`;
}
