import type { RowOrigin, Step } from '../types.js';
import type { OrderedIssue, TextCell } from './cellTexts.js';
import { parseCompletedSteps } from './completedStepsCell.js';
import { withValue } from './describeValue.js';
import { parseAgreementCompleted } from './parseAgreementCompleted.js';

/** What a row's control cells say; a blank or unreadable one leaves its part undefined (the caller's default applies). */
export interface RowControls {
  agreementCompleted?: boolean;
  completedSteps?: Step[];
  complianceDigest?: string;
  origin?: RowOrigin;
  issues: OrderedIssue[];
}

/** The control cells of a row. `error` is ignored: it is the tool's own note from an earlier run. */
export function readControls(texts: ReadonlyMap<string, TextCell>): RowControls {
  const controls: RowControls = { issues: [] };
  const agreement = texts.get('agreementCompleted');
  if (agreement) {
    const parsed = parseAgreementCompleted(agreement.text);
    if (parsed.ok) controls.agreementCompleted = parsed.value;
    else
      controls.issues.push({
        column: agreement.column,
        message: withValue(parsed.message, 'agreementCompleted', agreement.text),
        order: agreement.order,
      });
  }
  const steps = texts.get('completedSteps');
  if (steps) {
    const parsed = parseCompletedSteps(steps.text);
    if (parsed.ok) {
      controls.completedSteps = parsed.value;
      if (parsed.complianceDigest !== undefined) controls.complianceDigest = parsed.complianceDigest;
      if (parsed.origin !== undefined) controls.origin = parsed.origin;
    } else {
      controls.issues.push({ column: steps.column, message: parsed.message, order: steps.order });
    }
  }
  return controls;
}

/** What a row carries from an earlier failed or pending file, present parts only (the row types' optional fields). */
export function carried(
  controls: RowControls,
  digest: boolean,
): { completedSteps?: Step[]; complianceDigest?: string; origin?: RowOrigin } {
  return {
    ...(controls.completedSteps === undefined ? {} : { completedSteps: controls.completedSteps }),
    ...(digest && controls.complianceDigest !== undefined ? { complianceDigest: controls.complianceDigest } : {}),
    ...(controls.origin === undefined ? {} : { origin: controls.origin }),
  };
}
