import { z } from 'zod';
import { ConfigError } from '../core/errors.js';
import type { OptionDef } from './OptionDef.js';

// The sandbox's knobs in one table: startSandbox() and the `payer-onboard sandbox` command both go through
// resolveSandboxOptions(), so the flags, `--help`, its table in the docs, the defaults and the checks agree.

const DUPLICATE_MODES = ['conflict', 'return-existing'] as const;
const ERROR_SHAPES = ['messages', 'problems'] as const;
export type DuplicateMode = (typeof DUPLICATE_MODES)[number];
const IDEMPOTENCY_MODES = ['on', 'off'] as const;
/** How a `payment_detail.updated` names the account: the service's reference app reads one field, published fixtures use another. */
const ACCOUNT_SHAPES = ['reference-app', 'community'] as const;
export type AccountShape = (typeof ACCOUNT_SHAPES)[number];
/** What create payment details answers for a payer whose KYC is not approved. */
const KYC_GATES = ['500', '400', 'off'] as const;
export type KycGate = (typeof KYC_GATES)[number];
/** Whether the agreement page may be shown in another site's frame, as the service's is. */
const AGREEMENT_FRAMES = ['allow', 'deny'] as const;
export type AgreementFrame = (typeof AGREEMENT_FRAMES)[number];

const probability = z.number().min(0, 'must be between 0 and 1').max(1, 'must be between 0 and 1');
const nonNegativeInt = z.number().int('must be a whole number').min(0, 'must be 0 or more');
const fault = (what: string) =>
  ({
    type: 'number',
    value: 'P',
    default: 0,
    describe: `probability that ${what}`,
    schema: probability,
  }) as const;

interface SandboxOptionDef extends OptionDef {
  /** Checks a value, from a flag or a caller of startSandbox(). */
  schema: z.ZodType;
}

/** Every option with a flag, keyed by its startSandbox() name, in the order problems are reported. */
export const SANDBOX_OPTIONS = {
  /** Loopback by default: the sandbox has no real security. */
  host: {
    flag: 'host',
    type: 'string',
    value: 'H',
    default: '127.0.0.1',
    describe: 'interface to listen on',
    schema: z.string().min(1, 'must not be empty'),
  },
  /** A fixed port for a person starting it by hand; any free port for a caller (what tests want). */
  port: {
    flag: 'port',
    type: 'number',
    value: 'N',
    default: 0,
    cliDefault: 4010,
    describe: 'port to listen on; `0` = any free port (the line `listening on http://HOST:PORT` says which)',
    schema: z
      .number()
      .int('must be a whole number')
      .min(0, 'must be between 0 and 65535')
      .max(65535, 'must be between 0 and 65535'),
  },
  apiKey: {
    flag: 'api-key',
    type: 'string',
    value: 'KEY',
    default: 'sandbox-key',
    describe: 'the only `x-api-key` accepted; anything else is 401 (a made-up key: the sandbox is not the real API)',
    schema: z.string().min(1, 'must not be empty'),
  },
  /** Emulates a network round trip. */
  latencyMs: {
    flag: 'latency',
    type: 'number',
    value: 'MS',
    default: 0,
    describe: 'milliseconds added before every API answer',
    schema: nonNegativeInt,
  },
  rateLimit: {
    flag: 'rate-limit',
    type: 'number',
    value: 'N',
    default: 0,
    describe:
      'accepted requests per sliding second, reads included; past it 429 with `Retry-After` (whole seconds); `0` = no limit',
    schema: nonNegativeInt,
  },
  blockSeconds: {
    flag: 'block-seconds',
    type: 'number',
    value: 'S',
    default: 300,
    describe:
      'with `--rate-limit`, a sustained breach (more requests refused than the limit within one second) blocks the client for S seconds, every request answered 429 (the real service: 5 minutes); `0`: never',
    schema: z.number().min(0, 'must be 0 or more'),
  },
  /** The real API documents no `Retry-After`, so clients must also cope without. */
  retryAfter: {
    flag: 'retry-after',
    type: 'boolean',
    default: true,
    describe: 'send `Retry-After` with 429s (`--no-retry-after`: none, as the real API documents them)',
    schema: z.boolean(),
  },
  duplicates: {
    flag: 'duplicates',
    type: 'string',
    value: DUPLICATE_MODES.join('|'),
    default: 'return-existing',
    describe:
      'create compliance (either path) for a known `clientUserId`: 200 with the stored answer (`return-existing`, as the real service), or 409 (`conflict`)',
    schema: z.enum(DUPLICATE_MODES, { error: `must be one of: ${DUPLICATE_MODES.join(', ')}` }),
  },
  errorShape: {
    flag: 'error-shape',
    type: 'string',
    value: ERROR_SHAPES.join('|'),
    default: 'messages',
    describe:
      "a 400 for a body that fails validation: `message` a list of sentences (`messages`, NestJS's, as the payer operations answer), or of `{code, message, path}` (`problems`, as the service's other v2 operations answer)",
    schema: z.enum(ERROR_SHAPES, { error: `must be one of: ${ERROR_SHAPES.join(', ')}` }),
  },
  idempotency: {
    flag: 'idempotency',
    type: 'string',
    value: IDEMPOTENCY_MODES.join('|'),
    default: 'off',
    describe:
      '`off` ignores `Idempotency-Key`, as the real service does; `on` replays the first answer for a repeated key',
    schema: z.enum(IDEMPOTENCY_MODES, { error: `must be one of: ${IDEMPOTENCY_MODES.join(', ')}` }),
  },
  kycAfter: {
    flag: 'kyc-after',
    type: 'number',
    value: 'S',
    describe:
      "every payer's KYC becomes `approved` S seconds after creation (`0`: at creation); without it only `POST /__sandbox/payers/ID/kyc` moves KYC",
    schema: z.number().min(0, 'must be 0 or more'),
  },
  kycWord: {
    flag: 'kyc-word',
    type: 'string',
    value: 'WORD',
    default: 'approved',
    describe:
      "the word the answers report an approved KYC with (`completed`: as the service's OpenAPI document and a published client have it)",
    schema: z.string().regex(/^[a-z_]+$/, 'must be a word of lower-case letters and _'),
  },
  kycGate: {
    flag: 'kyc-gate',
    type: 'string',
    value: KYC_GATES.join('|'),
    default: '500',
    describe:
      'a bank account for a payer whose KYC is not `approved`: 500 as the real service, a 400 naming KYC, or accepted',
    schema: z.enum(KYC_GATES, { error: `must be one of: ${KYC_GATES.join(', ')}` }),
  },
  agreementGate: {
    flag: 'agreement-gate',
    type: 'boolean',
    default: false,
    describe:
      "refuse the agreement's PATCH (500) for a payer whose KYC is not `approved`, as a service that records the agreement only after KYC would: the tool then holds the signature until the approval",
    schema: z.boolean(),
  },
  /** Unless the admin route pinned the account's status. */
  accountApproveMs: {
    flag: 'account-approve-ms',
    type: 'number',
    value: 'MS',
    default: 1000,
    describe: 'a stored bank account is `pending` this long, then `approved`',
    schema: nonNegativeInt,
  },
  maskNumbers: {
    flag: 'mask-numbers',
    type: 'boolean',
    default: false,
    describe: 'the reads return `accountNumber` and `iban` as their last 4 characters, as a service that masks them',
    schema: z.boolean(),
  },
  bareReads: {
    flag: 'bare-reads',
    type: 'boolean',
    default: false,
    describe:
      "the payment-details read lists each account as only `id`, `userId`, `bankName` and `status`, as a published client's fixtures do",
    schema: z.boolean(),
  },
  /** `deny` is for testing a payer page that frames the agreement: what it says when the frame is refused. */
  agreementFrame: {
    flag: 'agreement-frame',
    type: 'string',
    value: AGREEMENT_FRAMES.join('|'),
    default: 'allow',
    describe:
      "whether the agreement page (the answers' `agreementUrl`) may be framed by any site (`allow`, as the service's frame is) or refuses every frame (`deny`: `X-Frame-Options: DENY`, `frame-ancestors 'none'`)",
    schema: z.enum(AGREEMENT_FRAMES, { error: `must be one of: ${AGREEMENT_FRAMES.join(', ')}` }),
  },
  webhookUrl: {
    flag: 'webhook-url',
    type: 'string',
    value: 'URL',
    describe:
      "send the service's webhooks (`compliance.updated`, `payment_detail.updated`) as signed POSTs to URL; without it none are sent",
    schema: z.string().regex(/^https?:\/\/\S+$/, 'must be an http:// or https:// URL'),
  },
  webhookSecretFile: {
    flag: 'webhook-secret-file',
    type: 'string',
    value: 'FILE',
    describe:
      'file holding the secret that signs the webhooks (`x-request-network-signature`); without it the secret comes from `PAYER_WEBHOOK_SECRET`, never from a flag value; one or the other is required with `--webhook-url`',
    schema: z.string().min(1, 'must not be empty'),
  },
  webhookDrop: {
    flag: 'webhook-drop',
    ...fault('a webhook delivery is lost on the way: never sent (`webhooksLost` in the stats)'),
  },
  webhookTwice: {
    flag: 'webhook-twice',
    ...fault('a webhook delivery is sent twice (the same delivery id both times)'),
  },
  /** The service's schedule takes 21 s to give up on a receiver: tests and demos run it in milliseconds. */
  webhookTimeScale: {
    flag: 'webhook-time-scale',
    type: 'number',
    value: 'F',
    default: 1,
    describe:
      "multiplies the webhooks' retry delays (1 s, 5 s, 15 s, as the service documents them) and each attempt's 5 s timeout (`0.01`: the whole schedule, four attempts timing out, in under half a second)",
    schema: z.number().positive('must be more than 0'),
  },
  webhookAccountShape: {
    flag: 'webhook-account-shape',
    type: 'string',
    value: ACCOUNT_SHAPES.join('|'),
    default: 'reference-app',
    describe:
      "how `payment_detail.updated` names the account: `paymentDetailsId` (`reference-app`: what the service's reference app reads) or `paymentAccountId` (`community`: as published community fixtures have it); neither carries a `clientUserId`",
    schema: z.enum(ACCOUNT_SHAPES, { error: `must be one of: ${ACCOUNT_SHAPES.join(', ')}` }),
  },
  fault429: { flag: 'fault-429', ...fault('a request gets 429 (nothing is changed)') },
  fault500: { flag: 'fault-500', ...fault('a request gets 500 (nothing is changed)') },
  fault503: { flag: 'fault-503', ...fault('a request gets 503 (nothing is changed)') },
  faultReset: { flag: 'fault-reset', ...fault('the connection is destroyed unanswered (nothing is changed)') },
  faultCommit500: { flag: 'fault-commit-500', ...fault('the change is made, then the answer is a 500') },
  faultSlow: {
    flag: 'fault-slow',
    ...fault('the change is made, and the answer comes only after `--slow-ms`, longer than any sane client timeout'),
  },
  slowMs: {
    flag: 'slow-ms',
    type: 'number',
    value: 'MS',
    default: 120_000,
    describe: 'how late a slow answer (`--fault-slow`) comes',
    schema: nonNegativeInt,
  },
  /**
   * The command's, not startSandbox's (whose caller's process is not the sandbox's): the id a script signals the
   * server by, whatever started it (after `npx payer-onboard sandbox &`, `$!` is npm's).
   */
  pidFile: {
    flag: 'pid-file',
    type: 'string',
    value: 'PATH',
    describe:
      "write the server's process id to PATH once it listens (removed when it ends): `kill $(cat PATH)` stops it, also when started through npx",
    schema: z.string().min(1, 'must not be empty'),
  },
  seed: {
    flag: 'seed',
    type: 'number',
    value: 'N',
    default: 1,
    describe:
      'seeds every random choice: the same seed and the same requests in the same order give the same faults and ids',
    schema: z
      .number()
      .int('must be a whole number')
      .min(0, 'must be between 0 and 4294967295')
      .max(4294967295, 'must be between 0 and 4294967295'),
  },
} as const satisfies Record<string, SandboxOptionDef>;

type SandboxTable = typeof SANDBOX_OPTIONS;
type SandboxShape = {
  -readonly [K in keyof SandboxTable]: SandboxTable[K] extends { default: unknown }
    ? z.ZodDefault<SandboxTable[K]['schema']>
    : z.ZodOptional<SandboxTable[K]['schema']>;
};
const sandboxShape = Object.fromEntries(
  Object.entries(SANDBOX_OPTIONS).map(([key, def]) => [
    key,
    'default' in def ? (def.schema as z.ZodType).default(def.default) : def.schema.optional(),
  ]),
) as SandboxShape;

const sandboxOptionsSchema = z
  .object({
    ...sandboxShape,
    // For callers only, no flag:
    /** Keep the received request bodies for GET /__sandbox/payers/:id. Off saves memory on huge runs. */
    keepRequests: z.boolean().default(true),
    /** Request bodies larger than this get 413. */
    maxBodyBytes: z
      .number()
      .int()
      .min(1)
      .default(1024 * 1024),
    /** The webhook secret itself, for a caller; the command takes it only from `--webhook-secret-file` or the environment. */
    webhookSecret: z.string().min(1, 'must not be empty').optional(),
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
