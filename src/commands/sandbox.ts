import type { Argv, Options } from 'yargs';
import { ConfigError } from '../errors.js';
import { resolveSandboxOptions, type SandboxOptions } from '../sandbox/options.js';
import { startSandbox } from '../sandbox/startSandbox.js';
import type { CliCommand } from './CliCommand.js';

// `payer-onboard sandbox`: the local Payer API emulator, served until SIGINT/SIGTERM.
// One table maps each flag to its startSandbox option, so the help, the parsing and the
// `--flag: problem` messages cannot drift apart. Values are checked by resolveSandboxOptions.

interface Flag {
  key: keyof SandboxOptions;
  option: Options;
}

const probability = (what: string): Options => ({
  type: 'number',
  default: 0,
  describe: `probability 0..1 that a request ${what}`,
});

const FLAGS: Record<string, Flag> = {
  host: { key: 'host', option: { type: 'string', default: '127.0.0.1', describe: 'interface to listen on' } },
  port: { key: 'port', option: { type: 'number', default: 4010, describe: 'port to listen on; 0 = any free port' } },
  'api-key': {
    key: 'apiKey',
    option: {
      type: 'string',
      default: 'sandbox-key',
      describe: 'the x-api-key value the sandbox accepts (a fake key: the sandbox is not the real API)',
    },
  },
  latency: {
    key: 'latencyMs',
    option: { type: 'number', default: 0, describe: 'milliseconds added before every API answer' },
  },
  'rate-limit': {
    key: 'rateLimit',
    option: {
      type: 'number',
      default: 0,
      describe: 'accepted requests per second (sliding window), then 429; 0 = no limit',
    },
  },
  'retry-after': {
    key: 'retryAfter',
    option: {
      type: 'boolean',
      default: true,
      describe: 'send Retry-After with 429s (--no-retry-after: none, like the real API documents)',
    },
  },
  duplicates: {
    key: 'duplicates',
    option: {
      type: 'string',
      default: 'return-existing',
      describe:
        'a repeated POST /v1/payer answers 200 with the stored answer (return-existing, as the real service) or 409 (conflict)',
    },
  },
  idempotency: {
    key: 'idempotency',
    option: {
      type: 'string',
      default: 'off',
      describe:
        'on: a repeated Idempotency-Key replays the first answer; off: the header is ignored, as the real service does',
    },
  },
  'kyc-after': {
    key: 'kycAfter',
    option: {
      type: 'number',
      describe:
        "seconds after creation at which every payer's KYC becomes approved (0: at creation); unset: only POST /__sandbox/payers/ID/kyc moves it",
    },
  },
  'kyc-gate': {
    key: 'kycGate',
    option: {
      type: 'string',
      default: '500',
      describe:
        'bank account for a payer whose KYC is not approved: 500 (as the real service), 400 naming KYC, or off (accepted)',
    },
  },
  'account-approve-ms': {
    key: 'accountApproveMs',
    option: {
      type: 'number',
      default: 1000,
      describe: 'a stored bank account is pending for this long, then approved',
    },
  },
  'mask-numbers': {
    key: 'maskNumbers',
    option: {
      type: 'boolean',
      default: false,
      describe: 'the reads return account numbers and IBANs as their last 4 characters',
    },
  },
  'fault-429': { key: 'fault429', option: probability('gets 429') },
  'fault-500': { key: 'fault500', option: probability('gets 500') },
  'fault-503': { key: 'fault503', option: probability('gets 503') },
  'fault-reset': { key: 'faultReset', option: probability('has its connection reset, unanswered and not applied') },
  'fault-commit-500': { key: 'faultCommit500', option: probability('is applied, then answered 500') },
  'fault-slow': { key: 'faultSlow', option: probability('is applied, then answered only after --slow-ms') },
  'slow-ms': {
    key: 'slowMs',
    option: { type: 'number', default: 120_000, describe: 'delay of a slow answer (--fault-slow), in milliseconds' },
  },
  seed: {
    key: 'seed',
    option: {
      type: 'number',
      default: 1,
      describe: 'seed of every random choice (faults, ids): same seed and requests, same run',
    },
  },
};

const flagOf = (key: string): string => {
  if (key === 'faults') return '--fault-*';
  const flag = Object.entries(FLAGS).find(([, f]) => f.key === key)?.[0];
  return flag === undefined ? key : `--${flag}`;
};

/** Flags as yargs parsed them -> checked startSandbox options; throws ConfigError(E_USAGE) naming every bad flag. */
export function sandboxOptionsFromArgv(argv: Record<string, unknown>): SandboxOptions {
  const options: Record<string, unknown> = {};
  for (const [flag, { key }] of Object.entries(FLAGS)) {
    if (argv[flag] !== undefined) options[key] = argv[flag];
  }
  return resolveSandboxOptions(options as SandboxOptions, flagOf);
}

export const sandboxCommand: CliCommand = {
  command: 'sandbox',
  describe: 'serve a local emulator of the Payer API (for rehearsals and tests) until stopped',
  builder: (yargs: Argv) => {
    let y = yargs;
    for (const [flag, { option }] of Object.entries(FLAGS)) y = y.option(flag, option);
    return y.example(
      '$0 sandbox --port 4010 --api-key k',
      'then: curl -H "x-api-key: k" -H "content-type: application/json" -d @payer.json http://127.0.0.1:4010/v1/payer',
    );
  },
  handler: async (argv, io) => {
    const options = sandboxOptionsFromArgv(argv);
    let sandbox: Awaited<ReturnType<typeof startSandbox>>;
    try {
      sandbox = await startSandbox(options);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EADDRINUSE')
        throw new ConfigError(`--port: ${options.port} is already in use on ${options.host}`, 'E_USAGE');
      if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EACCES') {
        throw new ConfigError(`--host/--port: cannot listen on ${options.host}:${options.port} (${code})`, 'E_USAGE');
      }
      throw error;
    }
    io.stdout.write(`listening on ${sandbox.url}\n`);
    io.stderr.write(`sandbox: stats at ${sandbox.url}/__sandbox/stats; Ctrl-C to stop\n`);
    if (!io.signal.aborted) {
      await new Promise<void>((resolve) => io.signal.addEventListener('abort', () => resolve(), { once: true }));
    }
    await sandbox.close();
    return 0;
  },
};
