import { type ChildProcess, fork } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pLimit from 'p-limit';
import { packageRoot } from '../core/packageRoot.js';
import type { ReadFile, UploadJob } from './checkChild.js';
import type { CheckedUpload, CheckJob } from './checkUpload.js';
import type { RowsKept } from './uploadTable.js';

/** How long a job on an uploaded file may take, and how much memory its process may hold. */
export interface ReaderLimits {
  timeMs: number;
  memoryMb: number;
}

export const READER_LIMITS: ReaderLimits = { timeMs: 30_000, memoryMb: 300 };

/**
 * Why a job gave no answer: past its time, past its memory, its process ended without one, or its process is of
 * another build than serve's and answered without what serve asks.
 */
export type ReadFailure = 'time' | 'memory' | 'ended' | 'build';

export type Answer<T> = { value: T } | { failed: ReadFailure };

/** Jobs at once: each process may hold its memory limit, and a person can upload several files together. */
const AT_ONCE = 2;
/** How often the process's resident memory is looked at. */
const WATCH_MS = 100;

/**
 * The one way serve reads an uploaded file: in a child process of its own (checkChild.ts, as built into
 * dist/bundle/, which `npm run build` makes and the bin ships with), one per job, so that a file that keeps a reader
 * busy holds that process and never serve's event loop: webhooks are answered and SIGTERM obeyed meanwhile. A process
 * rather than a worker thread: a worker's resourceLimits cap its JavaScript heap, not the Buffers a reader holds, and a
 * process is killed whole. Its heap is capped when it starts (--max-old-space-size) and its resident memory watched
 * (where /proc tells it), and it is killed past either limit or its time. Only plain data crosses: the job and its
 * answer. Nothing it prints is passed on (it could quote the file): its stdout and stderr go nowhere.
 */
export class UploadReader {
  private readonly slots = pLimit(AT_ONCE);
  private readonly running = new Set<ChildProcess>();

  constructor(
    private readonly limits: ReaderLimits = READER_LIMITS,
    /** serve stopping: every job's process is killed and the job refused, so no request holds the close. */
    private readonly signal?: AbortSignal,
    /** The environment the processes start with (serve's own). */
    private readonly env: NodeJS.ProcessEnv = process.env,
    /** The program each process runs: checkChild.ts as built (a test gives one of another build). */
    private readonly entry = join(packageRoot(), 'dist', 'bundle', 'checkChild.js'),
  ) {
    // A job still queued is refused when its turn comes.
    signal?.addEventListener('abort', () => {
      for (const child of this.running) child.kill('SIGKILL');
    });
  }

  /** The file's table with the rows asked for (none for JSON lines or a file the tool cannot read), and its facts. */
  read(path: string, rows: RowsKept, facts = false): Promise<Answer<ReadFile>> {
    return this.slots(() => this.spawn<ReadFile>({ kind: 'read', path, facts, rows }));
  }

  /** The upload checked as it would be sent (its file of the page's making written first, when edited). */
  async check(job: CheckJob): Promise<Answer<CheckedUpload>> {
    const answer = await this.slots(() => this.spawn<CheckedUpload>({ kind: 'check', job }));
    // A process of an older build (serve not restarted after an upgrade, or a checkout not built again) writes no
    // accounts: its check would leave unknown which rows give a payer another bank account.
    return 'value' in answer && typeof answer.value.accounts !== 'number' ? { failed: 'build' } : answer;
  }

  /** The one sentence the upload page says of a job that gave no answer. */
  why(name: string, failed: ReadFailure): string {
    if (failed === 'time')
      return `${name} took longer than ${this.limits.timeMs / 1000} seconds to check, so the tool stopped: save it again from its spreadsheet program, or split it into smaller files.`;
    if (failed === 'memory')
      return `${name} needed more than ${this.limits.memoryMb} MB of memory to check, so the tool stopped: split it into smaller files.`;
    if (failed === 'build')
      return `${name} could not be checked: the tool's checking program is not the version this serve runs. An operator restarts serve (from a checkout: npm run build first); then upload the file again.`;
    return `${name} could not be checked: its check ended unexpectedly (upload it again, or save it again from its spreadsheet program).`;
  }

  private spawn<T>(job: UploadJob): Promise<Answer<T>> {
    if (this.signal?.aborted) return Promise.reject(stopping());
    const { entry } = this;
    // Tests run serve from src/: the child is the built one all the same (npm test builds first).
    if (!existsSync(entry)) return Promise.reject(new Error(`payer-onboard: ${entry} is missing: npm run build`));
    const child = fork(entry, [], {
      execPath: process.execPath,
      execArgv: [`--max-old-space-size=${this.limits.memoryMb}`, '--max-semi-space-size=4'],
      env: checkEnv(this.env),
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
      serialization: 'advanced',
    });
    this.running.add(child);
    return new Promise<Answer<T>>((resolve, reject) => {
      let failed: ReadFailure = 'ended';
      const stop = (why: ReadFailure) => {
        failed = why;
        child.kill('SIGKILL');
      };
      const timer = setTimeout(() => stop('time'), this.limits.timeMs);
      const watch = setInterval(() => residentMb(child.pid) > this.limits.memoryMb && stop('memory'), WATCH_MS);
      // Once, whichever comes first: its answer, its end, or a process that never started (no pid, no exit event).
      let settled = false;
      const settle = (answer: Answer<T> | Error) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        clearInterval(watch);
        this.running.delete(child);
        child.kill('SIGKILL');
        if (answer instanceof Error) reject(answer);
        else resolve(answer);
      };
      child.once('message', (answer: { value: T }) => settle({ value: answer.value }));
      child.on('error', () => settle({ failed: 'ended' }));
      child.once('exit', (code, signal) => {
        if (this.signal?.aborted) settle(stopping());
        // V8 out of its heap aborts the process.
        else settle({ failed: failed === 'ended' && (signal === 'SIGABRT' || code === 134) ? 'memory' : failed });
      });
      if (child.pid === undefined) return settle({ failed: 'ended' });
      try {
        child.send(job);
      } catch {
        settle({ failed: 'ended' });
      }
    });
  }
}

/** Names kept of serve's environment in a check's process: what reading and checking a file may go by. */
const KEPT = /^(PATH|HOME|TZ|LANG|LANGUAGE|LC_\w+|TMPDIR|XDG_STATE_HOME|PAYER_ONBOARD_\w+)$/;
/** Never kept, though the above would: a database's or mail server's address, a secret, a key, a password. */
const SECRET = /_URL$|SECRET|PASSWORD|KEY|TOKEN/;

/**
 * What a check's process is given of serve's environment. It parses whatever was uploaded, so it holds nothing it does
 * not need: no API key, webhook secret, web password, database or SMTP address.
 */
export function checkEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const kept: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) if (KEPT.test(name) && !SECRET.test(name)) kept[name] = value;
  return kept;
}

const stopping = () => new Error('serve is stopping: the upload was not checked');

/** A process's resident memory in MB, from /proc (0 where there is none to read: its heap is capped still). */
function residentMb(pid: number | undefined): number {
  try {
    const kb = /^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return Number(kb ?? 0) / 1024;
  } catch {
    return 0;
  }
}
