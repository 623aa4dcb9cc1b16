import { bankCells } from '../rows/bankCells.js';
import { collectCells } from '../rows/collectCells.js';
import { PAYMENT_DETAIL_FIELDS } from '../rows/fields.js';
import type { BankRowResult, Cell } from '../types.js';
import { cellTexts, type OrderedIssue } from './cellTexts.js';
import { checkFields, inColumnOrder } from './checkFields.js';
import { clientSchemas, localDay } from './clientSchemas.js';
import type { ColumnMap } from '../rows/columnMap.js';
import { repairSpreadsheetDamage, type DateFormat } from './excelDamage.js';
import { carried, readControls } from './readControls.js';
import { validatePaymentDetail } from './validatePaymentDetail.js';

const NO_BOOLEANS: ReadonlySet<string> = new Set();
const CLIENT_USER_ID = ['clientUserId'] as const;

/**
 * One row of a `--bank-details` file: `clientUserId` and a payment detail by the fields' own names.
 * There is no payer row to lend shared fields, so every required one is the row's own.
 */
export function validateBankRow(
  cells: readonly Cell[],
  options: { today?: Date; columns?: ColumnMap | undefined; dateFormat?: DateFormat | undefined } = {},
): BankRowResult {
  const schemas = clientSchemas(localDay(options.today ?? new Date()));
  const collected = collectCells(cells, 'bank-details', '', 0, options.columns);
  const { texts, blanks, unusable, issues: cellIssues } = cellTexts(collected.byField, NO_BOOLEANS);
  const damage = repairSpreadsheetDamage(texts, unusable, options);

  const id = checkFields(schemas.compliance.shape, CLIENT_USER_ID, texts, {
    required: new Set(CLIENT_USER_ID),
    quiet: unusable,
    blanks,
    absentColumn: (field) => field,
  });
  const controls = readControls(texts);
  const detail = validatePaymentDetail(
    {
      cells: bankCells(texts, PAYMENT_DETAIL_FIELDS).cells,
      blanks: bankCells(blanks, PAYMENT_DETAIL_FIELDS).cells,
      unusable,
      absentColumn: (field) => field,
    },
    schemas,
  );
  const issues: OrderedIssue[] = [
    ...collected.repeated,
    ...cellIssues,
    ...damage,
    ...id.issues,
    ...controls.issues,
    ...detail.issues,
  ];

  const clientUserId = id.values.clientUserId;
  if (issues.length === 0 && clientUserId !== undefined && detail.detail) {
    // A bank row was never registered as a payer: a compliance digest on it would compare with nothing.
    return {
      ok: true,
      clientUserId,
      paymentDetail: detail.detail,
      ...carried(controls, false),
      completedSteps: controls.completedSteps ?? [],
    };
  }
  const given = texts.get('clientUserId')?.text;
  return {
    ok: false,
    ...(given === undefined ? {} : { clientUserId: given }),
    issues: inColumnOrder(issues),
    ...carried(controls, false),
  };
}
