import { LockedError } from '../core/errors.js';

/** Who holds a service and key: what the one turned away is told. */
export interface Holder {
  pid: number;
  host: string;
  startedAt: string;
  runId?: string;
  /** Where the holder keeps its journal: the other run a person has to find. */
  stateDir?: string;
}

/**
 * The message that turns a second process away: who holds it, and what to do. `leftMs`: how long the holder's
 * lease on a shared server has left, should it have stopped without giving it back.
 */
export function lockedBy(holder: Holder, using: string, leftMs?: number): LockedError {
  const where = holder.stateDir ? `, state dir ${holder.stateDir}` : '';
  // `serve` never finishes by itself: it is named as what it is, and stopped rather than waited for.
  const serving = holder.runId === 'serve';
  const who = serving ? 'payer-onboard serve' : 'another run';
  const run = holder.runId && !serving ? ` (run ${holder.runId})` : '';
  const then = serving ? 'Stop it first (or let it do this: it runs the inbox itself)' : 'Wait for it to finish';
  const lease =
    leftMs === undefined ? '' : `; its hold lapses within ${Math.ceil(leftMs / 1000)} s should it have stopped`;
  return new LockedError(
    `${who} is using ${using}: pid ${holder.pid} on ${holder.host}${where}, started ${holder.startedAt}${run}${lease}. ${then}.`,
  );
}

/**
 * What the holder said of itself, as plain words: any process could be answering, so nothing of its answer reaches a
 * terminal but printable text of a bounded length.
 */
export function holderOf(text: string): Holder {
  const unknown: Holder = { pid: 0, host: 'this machine', startedAt: 'at an unknown time' };
  let value: Partial<Record<keyof Holder, unknown>>;
  try {
    value = JSON.parse(text);
  } catch {
    return unknown;
  }
  const words = (v: unknown) =>
    typeof v === 'string' && v !== '' ? v.replace(/[^\x20-\x7e\u00a0-\uffff]/g, '?').slice(0, 300) : undefined;
  const holder: Holder = {
    pid: typeof value.pid === 'number' && Number.isInteger(value.pid) ? value.pid : 0,
    host: words(value.host) ?? unknown.host,
    startedAt: words(value.startedAt) ?? unknown.startedAt,
  };
  const runId = words(value.runId);
  const stateDir = words(value.stateDir);
  return { ...holder, ...(runId ? { runId } : {}), ...(stateDir ? { stateDir } : {}) };
}
