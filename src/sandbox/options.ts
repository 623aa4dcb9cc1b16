import { z } from 'zod';
import { ConfigError } from '../errors.js';

// The sandbox's knobs, their defaults and their checks in one place: startSandbox() and the
// `payer-onboard sandbox` command both go through resolveSandboxOptions().

export const DUPLICATE_MODES = ['conflict', 'return-existing'] as const;
export type DuplicateMode = (typeof DUPLICATE_MODES)[number];
export const IDEMPOTENCY_MODES = ['on', 'off'] as const;
export type IdempotencyMode = (typeof IDEMPOTENCY_MODES)[number];
/** What create payment details answers for a payer whose KYC is not approved. */
export const KYC_GATES = ['500', '400', 'off'] as const;
export type KycGate = (typeof KYC_GATES)[number];

const probability = z.number().min(0, 'must be between 0 and 1').max(1, 'must be between 0 and 1');
const nonNegativeInt = z.number().int('must be a whole number').min(0, 'must be 0 or more');

export const sandboxOptionsSchema = z
  .object({
    /** Interface to listen on. Loopback by default: the sandbox has no real security. */
    host: z.string().min(1, 'must not be empty').default('127.0.0.1'),
    /** 0 picks any free port (what tests want). */
    port: z
      .number()
      .int('must be a whole number')
      .min(0, 'must be between 0 and 65535')
      .max(65535, 'must be between 0 and 65535')
      .default(0),
    /** The only `x-api-key` value accepted. */
    apiKey: z.string().min(1, 'must not be empty').default('sandbox-key'),
    /** Added before every API answer, to emulate a network round trip. */
    latencyMs: nonNegativeInt.default(0),
    /** Accepted API requests per second (sliding one-second window); 0 = no limit. */
    rateLimit: nonNegativeInt.default(0),
    /** Send `Retry-After` with 429s. The real API documents none, so clients must also cope without. */
    retryAfter: z.boolean().default(true),
    /** What a second POST /v1/payer for a known clientUserId answers; the real service answers 200 with the stored answer. */
    duplicates: z
      .enum(DUPLICATE_MODES, { error: `must be one of: ${DUPLICATE_MODES.join(', ')}` })
      .default('return-existing'),
    /** `on` replays the first answer for a repeated Idempotency-Key; `off` ignores the header, as the real service does. */
    idempotency: z.enum(IDEMPOTENCY_MODES, { error: `must be one of: ${IDEMPOTENCY_MODES.join(', ')}` }).default('off'),
    /** Seconds after creation at which a payer's KYC becomes approved (0: at creation); unset: only the admin route moves it. */
    kycAfter: z.number().min(0, 'must be 0 or more').optional(),
    /** The real service answers 500 to a bank account for a payer whose KYC is not approved; `400` names KYC, `off` accepts it. */
    kycGate: z.enum(KYC_GATES, { error: `must be one of: ${KYC_GATES.join(', ')}` }).default('500'),
    /** A stored bank account is `pending` for this long, then `approved` (unless the admin route pinned its status). */
    accountApproveMs: nonNegativeInt.default(1000),
    /** The reads return accountNumber and iban as their last 4 characters, as a service that masks them would. */
    maskNumbers: z.boolean().default(false),
    fault429: probability.default(0),
    fault500: probability.default(0),
    fault503: probability.default(0),
    /** Destroy the socket without answering (the change is not made). */
    faultReset: probability.default(0),
    /** Make the change, then answer 500: the answer is lost, the change is not. */
    faultCommit500: probability.default(0),
    /** Make the change, then answer only after `slowMs`: longer than any sane client timeout. */
    faultSlow: probability.default(0),
    slowMs: nonNegativeInt.default(120_000),
    /** Seeds every random choice (faults and ids). The same seed and request order give the same run. */
    seed: z
      .number()
      .int('must be a whole number')
      .min(0, 'must be between 0 and 4294967295')
      .max(4294967295, 'must be between 0 and 4294967295')
      .default(1),
    /** Keep the received request bodies for GET /__sandbox/payers/:id. Off saves memory on huge runs. */
    keepRequests: z.boolean().default(true),
    /** Request bodies larger than this get 413. */
    maxBodyBytes: z
      .number()
      .int()
      .min(1)
      .default(1024 * 1024),
    /** The clock (epoch ms) that KYC and account statuses move by; tests inject one to move time without waiting. */
    now: z.custom<() => number>((value) => typeof value === 'function', 'must be a function').optional(),
  })
  .superRefine((o, ctx) => {
    const total = o.fault429 + o.fault500 + o.fault503 + o.faultReset + o.faultCommit500 + o.faultSlow;
    if (total > 1 + 1e-9) {
      ctx.addIssue({ code: 'custom', path: ['faults'], message: `fault rates add up to ${total}, more than 1` });
    }
  });

export type SandboxOptions = z.input<typeof sandboxOptionsSchema>;
export type ResolvedSandboxOptions = z.output<typeof sandboxOptionsSchema>;

/**
 * Applies defaults and checks every option, reporting all problems at once as `option: message`.
 * `nameOf` turns an option key into the name the user typed (the command passes `--fault-500` for `fault500`).
 */
export function resolveSandboxOptions(
  input: SandboxOptions = {},
  nameOf: (key: string) => string = (key) => key,
): ResolvedSandboxOptions {
  const parsed = sandboxOptionsSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => {
    const key = issue.path.map(String).join('.') || 'options';
    // zod's own type messages ("expected number, received NaN") are clear enough, but never quote the value.
    const message =
      issue.code !== 'invalid_type'
        ? issue.message
        : issue.expected === 'int'
          ? 'must be a whole number'
          : `must be a ${issue.expected}`;
    return `${nameOf(key)}: ${message}`;
  });
  throw new ConfigError(problems.join('\n'), 'E_USAGE');
}
