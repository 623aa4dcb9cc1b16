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

/** The message that turns a second process away: who holds it, and what to do. */
export function lockedBy(holder: Holder, using: string): LockedError {
  const where = holder.stateDir ? `, state dir ${holder.stateDir}` : '';
  // `serve` never finishes by itself: it is named as what it is, and stopped rather than waited for.
  const serving = holder.runId === 'serve';
  const who = serving ? 'payer-onboard serve' : 'another run';
  const run = holder.runId && !serving ? ` (run ${holder.runId})` : '';
  const then = serving ? 'Stop it first (or let it do this: it runs the inbox itself)' : 'Wait for it to finish';
  return new LockedError(
    `${who} is using ${using}: pid ${holder.pid} on ${holder.host}${where}, started ${holder.startedAt}${run}. ${then}.`,
  );
}
