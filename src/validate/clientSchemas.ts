import { z } from 'zod';
import {
  ACCOUNT_TYPES,
  BENEFICIARY_TYPES,
  type ComplianceRequest,
  complianceRequest,
  type PaymentDetailRequest,
  paymentDetailRequest,
  RAILS,
} from '../core/schemas.js';
import {
  type Checked,
  checkClientUserId,
  checkCountry,
  checkCurrency,
  checkIban,
  checkNotAfter,
  checkOneOf,
  checkRoutingNumber,
  checkSwiftBic,
  toE164,
  type OrderedIssue,
} from './textChecks.js';
import { chain, type FastRule, plainRule, plainValues } from './plainChecks.js';
import { fieldChecks } from './checkFields.js';
import {
  PAYER_FIELDS,
  PAYMENT_DETAIL_FIELDS,
  REQUIRED_PAYER_FIELDS,
  REQUIRED_PAYMENT_DETAIL_FIELDS,
} from '../rows/fields.js';

// The client's rules are the spec's schemas with stricter steps piped in front or behind:
// each rule ends in the spec's own field schema (optional ones unwrapped, then made optional again), so whatever
// passes here certainly passes the spec and the sandbox.

/** A zod step running one of textChecks' functions: its message becomes the issue, its value the output. */
function step(check: (text: string) => Checked) {
  return z.string().transform((text, ctx) => {
    const checked = check(text);
    if (checked.ok) return checked.value;
    ctx.issues.push({ code: 'custom', message: checked.message, input: text });
    return z.NEVER;
  });
}

function build(today: string) {
  const beneficiaryType = step(checkOneOf(BENEFICIARY_TYPES)).pipe(complianceRequest.shape.beneficiaryType);
  const country = step(checkCountry).pipe(complianceRequest.shape.country);
  const isoDate = z.iso.date({ error: 'is not a real calendar date' });
  const dateOfBirth = complianceRequest.shape.dateOfBirth.pipe(isoDate).pipe(step(checkNotAfter(today)));
  const phone = z.string().transform(toE164).pipe(complianceRequest.shape.phone);

  const compliance = complianceRequest.extend({
    clientUserId: step(checkClientUserId).pipe(complianceRequest.shape.clientUserId),
    beneficiaryType,
    dateOfBirth,
    country,
    nationality: step(checkCountry).pipe(complianceRequest.shape.nationality),
    phone,
  });

  const paymentDetail = paymentDetailRequest.extend({
    beneficiaryType: beneficiaryType.pipe(paymentDetailRequest.shape.beneficiaryType),
    currency: step(checkCurrency).pipe(paymentDetailRequest.shape.currency),
    country: country.pipe(paymentDetailRequest.shape.country),
    dateOfBirth: dateOfBirth.pipe(paymentDetailRequest.shape.dateOfBirth),
    routingNumber: step(checkRoutingNumber).pipe(paymentDetailRequest.shape.routingNumber.unwrap()).optional(),
    rails: step(checkOneOf(RAILS)).pipe(paymentDetailRequest.shape.rails.unwrap()).optional(),
    iban: step(checkIban).pipe(paymentDetailRequest.shape.iban.unwrap()).optional(),
    swiftBic: step(checkSwiftBic).pipe(paymentDetailRequest.shape.swiftBic.unwrap()).optional(),
    accountType: step(checkOneOf(ACCOUNT_TYPES)).pipe(paymentDetailRequest.shape.accountType.unwrap()).optional(),
  });

  // The same rules as plain functions, for the cells they certainly accept (each mirrors its schema above, step
  // for step); the others go to the schemas. Plain spec fields (non-empty, lengths, the e-mail pattern) need none.
  const fastDateOfBirth = chain(complianceRequest.shape.dateOfBirth, isoDate, fastStep(checkNotAfter(today)));
  const fast = {
    compliance: fastRules(compliance, {
      clientUserId: chain(fastStep(checkClientUserId), complianceRequest.shape.clientUserId),
      dateOfBirth: fastDateOfBirth,
      phone: chain(toE164, complianceRequest.shape.phone),
    }),
    paymentDetail: fastRules(paymentDetail, {
      dateOfBirth: chain(fastDateOfBirth, paymentDetailRequest.shape.dateOfBirth),
      routingNumber: chain(fastStep(checkRoutingNumber), paymentDetailRequest.shape.routingNumber.unwrap()),
      iban: chain(fastStep(checkIban), paymentDetailRequest.shape.iban.unwrap()),
      swiftBic: chain(fastStep(checkSwiftBic), paymentDetailRequest.shape.swiftBic.unwrap()),
    }),
  };
  const checks = {
    compliance: fieldChecks(compliance, PAYER_FIELDS, fast.compliance, REQUIRED_PAYER_FIELDS),
    clientUserId: fieldChecks(compliance, ['clientUserId'], fast.compliance, ['clientUserId']),
    paymentDetail: fieldChecks(
      paymentDetail,
      PAYMENT_DETAIL_FIELDS,
      fast.paymentDetail,
      REQUIRED_PAYMENT_DETAIL_FIELDS,
    ),
  };
  return { compliance, paymentDetail, fast, checks };
}

/** A textChecks function as a FastRule: its value when it accepts the text. */
function fastStep(check: (text: string) => Checked): FastRule {
  return (text) => {
    const checked = check(text);
    return checked.ok ? checked.value : undefined;
  };
}

/** Each field's fast rule: the one given, or its schema's own when plain; none for the rest. */
function fastRules(
  object: z.ZodObject,
  given: Record<string, FastRule | undefined>,
): Readonly<Record<string, FastRule | undefined>> {
  const rules: Record<string, FastRule | undefined> = {};
  for (const [field, schema] of Object.entries(object.shape as Record<string, z.ZodType>)) {
    rules[field] = given[field] ?? plainRule(schema);
  }
  return rules;
}

export type ClientSchemas = ReturnType<typeof build>;

/**
 * The client's compliance and payment-detail schemas for a given day (YYYY-MM-DD): only the date-of-birth rule
 * depends on the day. Building them costs far more than a row's check, so a reader of many rows builds them once.
 */
export function clientSchemas(today: string): ClientSchemas {
  return build(today);
}

/**
 * The spec's request schemas as the last word on a row's bodies, given as values by their key's place in the shape
 * (undefined: not given). Built from values each field's rule accepted, they pass unless a required field is absent,
 * so they are parsed the plain way first and by zod only when that is unsure.
 */
export const specBodies = {
  compliance: lastWordAt<ComplianceRequest>(complianceRequest),
  paymentDetail: lastWordAt<PaymentDetailRequest>(paymentDetailRequest),
};

function lastWordAt<T>(schema: z.ZodObject) {
  const plain = plainValues<T>(schema);
  const keys = Object.keys(schema.shape);
  return (values: readonly (string | undefined)[]): z.ZodSafeParseResult<T> => {
    const data = plain?.(values);
    if (data !== undefined) return { success: true, data };
    const body: Record<string, string> = {};
    keys.forEach((key, i) => {
      if (values[i] !== undefined) body[key] = values[i];
    });
    return schema.safeParse(body) as z.ZodSafeParseResult<T>;
  };
}

/** The calendar day of `date` where the run happens, as YYYY-MM-DD. */
export function localDay(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** A row's issues in the order of its columns (stable, so one cell's issues keep their order). */
export function inColumnOrder(issues: OrderedIssue[]): { column: string; message: string }[] {
  return [...issues].sort((a, b) => a.order - b.order).map(({ column, message }) => ({ column, message }));
}
