import { STEPS, type Step } from '../types.js';
import { quoteValue } from './describeValue.js';

/**
 * The `completedSteps` cell a failed file carries: `compliance;payment-details`. `,` and spaces separate too,
 * since people edit these files by hand. Returned in pipeline order, each step once.
 */
export function parseCompletedSteps(text: string): { ok: true; value: Step[] } | { ok: false; message: string } {
  const words = text.toLowerCase().split(/[;,\s]+/).filter((word) => word !== '');
  const unknown = words.filter((word) => !(STEPS as readonly string[]).includes(word));
  if (unknown.length > 0) {
    const names = unknown.map(quoteValue).join(', ');
    return { ok: false, message: `has unknown step${unknown.length > 1 ? 's' : ''} ${names} (steps are ${STEPS.join(', ')})` };
  }
  return { ok: true, value: STEPS.filter((step) => words.includes(step)) };
}
