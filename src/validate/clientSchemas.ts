import { z } from 'zod';
import { ACCOUNT_TYPES, BENEFICIARY_TYPES, complianceRequest, paymentDetailRequest, RAILS } from '../schema/index.js';
import {
  type Checked,
  checkCountry,
  checkCurrency,
  checkIban,
  checkNotAfter,
  checkOneOf,
  checkRoutingNumber,
  checkSwiftBic,
  toE164,
} from './textChecks.js';

// The client's rules are the spec's schemas with stricter steps piped in front or behind (design.md §4, §11):
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
  const dateOfBirth = complianceRequest.shape.dateOfBirth
    .pipe(z.iso.date({ error: 'is not a real calendar date' }))
    .pipe(step(checkNotAfter(today)));

  const compliance = complianceRequest.extend({
    beneficiaryType,
    dateOfBirth,
    country,
    nationality: step(checkCountry).pipe(complianceRequest.shape.nationality),
    phone: z.string().transform(toE164).pipe(complianceRequest.shape.phone),
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
  return { compliance, paymentDetail };
}

export type ClientSchemas = ReturnType<typeof build>;

// Only the date-of-birth rule depends on the day; rebuilding per row would be wasted work on a million-row file.
let cached: { today: string; schemas: ClientSchemas } | undefined;

/** The client's compliance and payment-detail schemas for a given day (YYYY-MM-DD). */
export function clientSchemas(today: string): ClientSchemas {
  if (cached?.today !== today) cached = { today, schemas: build(today) };
  return cached.schemas;
}

/** The calendar day of `date` where the run happens, as YYYY-MM-DD. */
export function localDay(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}
