import type { Step } from '../types.js';
import type { OrderedIssue, TextCell } from './cellTexts.js';
import { withValue } from './describeValue.js';
import { parseAgreementCompleted } from './parseAgreementCompleted.js';
import { parseCompletedSteps } from './parseCompletedSteps.js';

/** The control cells of a row; a blank one is undefined and the caller's default applies. `error` is ignored. */
export function readControls(texts: ReadonlyMap<string, TextCell>): {
  agreementCompleted?: boolean;
  completedSteps?: Step[];
  issues: OrderedIssue[];
} {
  const issues: OrderedIssue[] = [];
  let agreementCompleted: boolean | undefined;
  let completedSteps: Step[] | undefined;

  const agreement = texts.get('agreementCompleted');
  if (agreement) {
    const parsed = parseAgreementCompleted(agreement.text);
    if (parsed.ok) agreementCompleted = parsed.value;
    else issues.push({ column: agreement.column, message: withValue(parsed.message, 'agreementCompleted', agreement.text), order: agreement.order });
  }
  const steps = texts.get('completedSteps');
  if (steps) {
    const parsed = parseCompletedSteps(steps.text);
    if (parsed.ok) completedSteps = parsed.value;
    else issues.push({ column: steps.column, message: parsed.message, order: steps.order });
  }
  return { ...(agreementCompleted === undefined ? {} : { agreementCompleted }), ...(completedSteps === undefined ? {} : { completedSteps }), issues };
}
