import { copyFileSync, mkdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { BOUNDS } from './tryInput.js';

/**
 * Watches the inputs from a thread of its own: an input that holds the event loop (a loop that never yields, a
 * recursion) cannot be timed by the thread it holds. Past the time bound the watchdog copies the input among the finds,
 * says so, and kills the process (a hang is a find; nothing else would end it). It also keeps the highest memory the
 * process reached while each input was read, which a single reading afterwards would miss.
 */
const WATCH = `
const { parentPort, workerData } = require('node:worker_threads');
const { copyFileSync, mkdirSync, writeSync } = require('node:fs');
const { basename, join } = require('node:path');
const peak = new Int32Array(workerData.peak);
let current;
parentPort.on('message', (m) => { current = m.path === undefined ? undefined : { ...m, since: Date.now() }; });
setInterval(() => {
  const mb = Math.round(process.memoryUsage.rss() / 1048576);
  if (mb > Atomics.load(peak, 0)) Atomics.store(peak, 0, mb);
  if (current === undefined || Date.now() - current.since < workerData.ms) return;
  mkdirSync(workerData.finds, { recursive: true });
  const kept = join(workerData.finds, 'hang-' + Date.now() + '-' + basename(current.path));
  copyFileSync(current.path, kept);
  // Written at once: this thread's process.stderr goes through the main thread, which the input holds.
  writeSync(2, 'fuzz: an input held the process for ' + workerData.ms + ' ms: ' + kept + '\\n');
  process.kill(process.pid, 'SIGKILL');
}, 50).unref();
`;

export interface Watchdog {
  /** Before an input is read: its file, kept among the finds if the reading never ends. */
  watch(path: string): void;
  /** After: the most memory the process held meanwhile, in MB above what it held before. */
  done(): number;
  stop(): Promise<number>;
}

export function startWatchdog(finds: string): Watchdog {
  const peak = new SharedArrayBuffer(4);
  const worker = new Worker(WATCH, { eval: true, workerData: { peak, finds, ms: BOUNDS.ms + 5_000 } });
  worker.unref();
  const view = new Int32Array(peak);
  let before = 0;
  return {
    watch(path) {
      before = Math.round(process.memoryUsage.rss() / 1_048_576);
      Atomics.store(view, 0, before);
      worker.postMessage({ path });
    },
    done() {
      worker.postMessage({});
      const now = Math.round(process.memoryUsage.rss() / 1_048_576);
      return Math.max(Atomics.load(view, 0), now) - before;
    },
    stop: () => worker.terminate(),
  };
}

/** Keeps an input that broke the contract among the finds, named by what it broke, for a person to make a fixture. */
export function keepFind(finds: string, path: string, why: string): string {
  mkdirSync(finds, { recursive: true });
  const kept = join(finds, `${why.replace(/[^a-z0-9]+/gi, '-').slice(0, 40)}-${Date.now()}-${basename(path)}`);
  copyFileSync(path, kept);
  return kept;
}
