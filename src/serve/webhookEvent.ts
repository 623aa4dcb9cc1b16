import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';

// The service's webhooks: a JSON body naming the event, signed with the hex SHA-256 HMAC of the raw body in
// `x-request-network-signature`. Beyond `compliance.updated`'s example the payload's fields are not documented: the
// ids and statuses are looked for at the top level and under `data`, a bank account's id by every name it is known to
// go by, and an event is a hint to read the payer, never a fact.

export const SIGNATURE_HEADER = 'x-request-network-signature';
/** Each delivery's id (a ULID): the service's documents say to use it against duplicate processing. */
export const DELIVERY_HEADER = 'x-request-network-delivery';
/** `true` on the service's test deliveries, whose payload is placeholder data: acknowledged, nothing changed. */
export const TEST_HEADER = 'x-request-network-test';

/**
 * The delivery id a delivery names, when it names a usable one (letters, digits, `-` and `_`, as a ULID is; at most
 * 64): the key that makes a retry of it the same delivery.
 */
export function deliveryIdOf(header: string | string[] | undefined): string | undefined {
  const value = typeof header === 'string' ? header.trim() : undefined;
  return value !== undefined && /^[\w-]{1,64}$/.test(value) ? value : undefined;
}

/** Whether the delivery says it is one of the service's test deliveries. */
export function isTestDelivery(header: string | string[] | undefined): boolean {
  return typeof header === 'string' && header.trim().toLowerCase() === 'true';
}

/** What an event says, as far as the tool uses it. Every field but the name may be missing. */
export interface WebhookEvent {
  event: string;
  clientUserId?: string;
  userId?: string;
  kycStatus?: string;
  agreementStatus?: string;
  /** A `payment_detail.updated`'s account, whatever the body called it. */
  paymentDetailId?: string;
  status?: string;
}

/**
 * What a `payment_detail.updated` may call its account, most likely first: the service's reference app reads
 * `paymentDetailsId`, published community fixtures send `paymentAccountId`; the others are guesses a reader can afford.
 */
const ACCOUNT_FIELDS = ['paymentDetailsId', 'paymentAccountId', 'paymentDetailId', 'id'] as const;

const text = z
  .union([z.string(), z.number()])
  .transform((v) => String(v).trim())
  .optional()
  .catch(undefined);

const fields = z.object({
  clientUserId: text,
  userId: text,
  kycStatus: text,
  agreementStatus: text,
  paymentDetailId: text,
  paymentDetailsId: text,
  paymentAccountId: text,
  id: text,
  status: text,
});

const payload = fields.extend({
  event: z.string().min(1).max(200),
  data: fields.optional().catch(undefined),
});

/** Whether the signature is the body's, keyed with the secret; compared in constant time. */
export function signatureValid(body: Buffer, header: string | undefined, secret: string): boolean {
  if (header === undefined) return false;
  const given = Buffer.from(header.trim().replace(/^sha256=/i, ''), 'hex');
  const expected = createHmac('sha256', secret).update(body).digest();
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The event a signed body carries, or why it carries none (not JSON, no event name). */
export function parseEvent(body: Buffer): { event: WebhookEvent } | { problem: string } {
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    return { problem: 'the body is not JSON' };
  }
  const parsed = payload.safeParse(json);
  if (!parsed.success) return { problem: 'the body names no event' };
  const { data, event, ...top } = parsed.data;
  const { paymentDetailsId, paymentAccountId, id, paymentDetailId, ...merged } = definedOnly({
    ...data,
    ...definedOnly(top),
  });
  const named = { paymentDetailsId, paymentAccountId, paymentDetailId, id };
  const account = ACCOUNT_FIELDS.map((field) => named[field]).find((value) => value !== undefined);
  // Only an account's event names an account: another event's `id` is its own.
  return {
    event: {
      event,
      ...merged,
      ...(event === 'payment_detail.updated' && account !== undefined ? { paymentDetailId: account } : {}),
    },
  };
}

function definedOnly<T extends Record<string, string | undefined>>(values: T): Partial<Record<keyof T, string>> {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined && v !== '')) as Partial<
    Record<keyof T, string>
  >;
}
