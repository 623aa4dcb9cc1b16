import type { StepStatus } from '../types.js';
import type { CallResult } from './ApiClient.js';

export interface StepReport {
  status: StepStatus;
  /** `step: HTTP 400 message` items; for a skipped step, why nothing was sent. */
  errors: string[];
  /** Whether any of the calls reached the wire (so the row is partly done). */
  attempted: boolean;
}

/**
 * One step's status from its calls (several for a payer with several payment details): ok when all are ok,
 * skipped when none was sent because the client stopped, failed otherwise, including a mix of sent and
 * not sent, since the step is then neither done nor untouched.
 */
export function stepFromCalls(results: ReadonlyArray<CallResult<unknown>>): StepReport {
  const sent = results.filter((r) => r.ok || r.error.kind !== 'stopped');
  const failures = results.flatMap((r, i) => (r.ok ? [] : [{ error: r.error, i }]));
  const label = (message: string, i: number) => (results.length > 1 ? `${message} (${i + 1} of ${results.length})` : message);
  if (failures.length === 0) return { status: 'ok', errors: [], attempted: sent.length > 0 };
  if (sent.length === 0) {
    const first = failures[0];
    return { status: 'skipped', errors: first === undefined ? [] : [first.error.message], attempted: false };
  }
  return { status: 'failed', errors: failures.map(({ error, i }) => label(error.message, i)), attempted: true };
}
