import proxyAddr from '@fastify/proxy-addr';
import { ConfigError } from '../core/errors.js';
import { isLoopbackHost } from './connection.js';
import { INBOX_OPTIONS } from './inboxOptions.js';
import { MAIL_OPTIONS } from './mailOptions.js';
import { OIDC_OPTIONS } from './oidcOptions.js';
import type { OptionDef } from './OptionDef.js';
import { RUN_OPTIONS } from './runOptions.js';
import { FORGET_OPTIONS } from './directoryOptions.js';

/**
 * The origins the service's reference app takes the agreement's completion message from: the payer's page takes it
 * from these (unless `--agreement-origins` says otherwise) and from the origin of the payer's own agreementUrl.
 */
const REFERENCE_AGREEMENT_ORIGINS = ['https://request.network', 'https://core-api-staging.pay.so'] as const;

/** Hours between rechecks of a waiting payer when webhooks tell of changes: they only cover deliveries lost. */
export const RECHECK_WITH_WEBHOOKS_H = 72;

/** `serve`'s own options; it takes `inbox`'s run options too. runServe() defaults from here. */
export const SERVE_OPTIONS = {
  inbox: {
    flag: 'inbox',
    type: 'string',
    value: 'DIR',
    describe:
      "the inbox folder `serve` runs (as `inbox --watch` does): files dropped in `incoming/`; the rows they leave waiting on their payers are kept in the store, and the webhooks' events move them on",
  },
  host: {
    flag: 'host',
    type: 'string',
    value: 'H',
    default: '127.0.0.1',
    describe:
      'interface to listen on; loopback by default: put a TLS reverse proxy in front for the service to reach it',
  },
  port: {
    flag: 'port',
    type: 'number',
    value: 'N',
    default: 0,
    cliDefault: 8787,
    describe: 'port to listen on; `0` = any free port (the line `serve: listening on http://HOST:PORT` says which)',
  },
  webhookPath: {
    flag: 'webhook-path',
    type: 'string',
    value: 'PATH',
    default: '/webhooks',
    describe: 'the path the service posts its webhooks to (the URL registered for your Client ID ends with it)',
  },
  webhookSecretFile: {
    flag: 'webhook-secret-file',
    type: 'string',
    value: 'FILE',
    describe:
      'file holding the webhook secret the service answered (once) when the URL was registered; without it the secret comes from `PAYER_WEBHOOK_SECRET` (the value itself), never from a flag value; with neither, webhooks are off and waiting payers are only rechecked',
  },
  webPasswordFile: {
    flag: 'web-password-file',
    type: 'string',
    value: 'FILE',
    describe:
      'file holding the password of the web page for the finance team (upload, check, send); without it the password comes from `PAYER_WEB_PASSWORD`, never from a flag value; with neither, the page is off',
  },
  publicUrl: {
    flag: 'public-url',
    type: 'string',
    value: 'URL',
    describe:
      "serve's address behind your TLS proxy (`https://payers.example.com`; http only to loopback): the pages answer only to the names they are known by, loopback's and this one's; with it, each payer's own page is on at `/p/`, and their links (the mails' too) lead there; without it no mail is sent",
  },
  ...OIDC_OPTIONS,
  agreementOrigins: {
    flag: 'agreement-origins',
    type: 'string',
    value: 'ORIGINS',
    defaultText: REFERENCE_AGREEMENT_ORIGINS.map((origin) => `\`${origin}\``).join(', '),
    describe:
      "the origins (comma-separated) the payer's page frames the agreement from and takes its `{agreements: \"complete\"}` message from, besides the origin of the payer's own `agreementUrl`: by default the service's reference app's two",
  },
  linkDays: {
    flag: 'link-days',
    type: 'number',
    value: 'DAYS',
    default: 30,
    describe:
      "days a payer's personal link to their page stays valid; each mail carries a new one, and earlier ones stay valid until they expire or are revoked",
  },
  trustProxy: {
    flag: 'trust-proxy',
    type: 'string',
    value: 'ADDRESSES',
    describe:
      'the reverse proxies in front of `serve` (IP addresses or CIDRs, comma-separated; `loopback` for one on this machine): only theirs are `X-Forwarded-For` and `-Proto` believed, so per-client limits count the client a proxy forwards; from any other peer the headers are ignored',
  },
  uploadLimit: {
    flag: 'upload-limit',
    type: 'number',
    value: 'MB',
    default: 25,
    describe: 'the largest file the web page takes, in megabytes',
  },
  settle: INBOX_OPTIONS.settle,
  recheckAfter: {
    ...INBOX_OPTIONS.recheckAfter,
    default: undefined,
    defaultText: `\`${RECHECK_WITH_WEBHOOKS_H}\` with webhooks, \`${INBOX_OPTIONS.recheckAfter.default}\` without`,
    describe:
      "hours after a payer's last check before its waiting rows are run again: with webhooks only a cover for deliveries lost",
  },
  quietAfter: {
    flag: 'quiet-after',
    type: 'number',
    value: 'HOURS',
    default: 24,
    describe:
      'no webhook for this long while payers wait: /healthz says so (the service lists its payer events under legacy integrations; the recheck carries the load then)',
  },
  ...MAIL_OPTIONS,
  mailOutbox: {
    ...MAIL_OPTIONS.mailOutbox,
    defaultText: '`mail-outbox/` in the inbox',
  },
  remindAfter: {
    flag: 'remind-after',
    type: 'string',
    value: 'DAYS',
    default: '3,7',
    describe:
      'days after the invitation that a payer with something still to do is reminded, comma-separated (fractions allowed); `none`: no reminders',
  },
} as const satisfies Record<string, OptionDef>;

/**
 * `invite`'s options: which payers, what to do with them, where their store is (as `run` finds it), and the mail
 * settings a preview renders with (serve's own).
 */
export const INVITE_OPTIONS = {
  allPending: {
    flag: 'all-pending',
    type: 'boolean',
    default: false,
    describe: 'every payer of the directory with something still to do (KYC or the agreement) and no invitation yet',
  },
  again: {
    flag: 'again',
    type: 'boolean',
    default: false,
    describe: 'send a new invitation (with a new link) to payers invited before, or whose invitation may have gone',
  },
  preview: {
    flag: 'preview',
    type: 'boolean',
    default: false,
    describe:
      'write the mail the payer would get next to stdout, with a placeholder for the link: nothing is sent, no link issued',
  },
  html: {
    flag: 'html',
    type: 'boolean',
    default: false,
    describe: "with --preview: the mail's HTML instead of its text",
  },
  dryRun: {
    flag: 'dry-run',
    type: 'boolean',
    default: false,
    describe:
      'list who would be mailed and with which mail, and write nothing; without ids or --all-pending, the mails serve has to send',
  },
  inbox: {
    flag: 'inbox',
    type: 'string',
    value: 'DIR',
    describe:
      "serve's inbox: its store is there (`.payer-onboard/`) unless `--state-dir` or the database says otherwise",
  },
  baseUrl: { ...RUN_OPTIONS.baseUrl, describe: RUN_OPTIONS.baseUrl.describeFor.status },
  apiKeyFile: RUN_OPTIONS.apiKeyFile,
  stateDir: RUN_OPTIONS.stateDir,
  databaseUrlFile: RUN_OPTIONS.databaseUrlFile,
  publicUrl: SERVE_OPTIONS.publicUrl,
  linkDays: SERVE_OPTIONS.linkDays,
  ...MAIL_OPTIONS,
} as const satisfies Record<string, OptionDef>;

/**
 * `--remind-after` as days after the invitation, in order: `3,7`, `0.5`, or `none` for no reminder. Each above 0 and
 * after the one before.
 */
export function parseRemindAfter(text: string): number[] {
  const flag = `--${SERVE_OPTIONS.remindAfter.flag}`;
  if (text.trim().toLowerCase() === 'none') return [];
  const days = text.split(',').map((part) => Number(part.trim() === '' ? Number.NaN : part));
  if (days.some((d) => !Number.isFinite(d) || d <= 0))
    throw new ConfigError(`${flag}: write days after the invitation, comma-separated (3,7), or none`, 'E_USAGE');
  if (days.some((d, i) => i > 0 && d <= days[i - 1]!))
    throw new ConfigError(`${flag}: each reminder must come after the one before (3,7, not 7,3)`, 'E_USAGE');
  return days;
}

/** serve's own options, checked; the proxies it trusts, compiled; the agreement's origins as a list. */
export function checkServeOptions(given: {
  port?: number | undefined;
  webhookPath?: string | undefined;
  trustProxy?: string | undefined;
  agreementOrigins?: string | undefined;
  linkDays?: number | undefined;
}): { trustProxy: TrustedProxy | undefined; agreementOrigins: string[] } {
  const port = given.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new ConfigError('--port: must be a whole number between 0 and 65535', 'E_USAGE');
  if (given.webhookPath !== undefined && !/^\/[\w./-]*$/.test(given.webhookPath))
    throw new ConfigError('--webhook-path: must start with / and hold only letters, digits, -, _, . and /', 'E_USAGE');
  if (given.linkDays !== undefined && !(given.linkDays > 0 && given.linkDays <= 366))
    throw new ConfigError('--link-days: must be a number of days above 0, at most 366', 'E_USAGE');
  return { trustProxy: trustedProxies(given.trustProxy), agreementOrigins: agreementOrigins(given.agreementOrigins) };
}

/**
 * `--agreement-origins` as origins (`https://host[:port]`, http only to loopback), each checked; the reference app's
 * two when not given.
 */
function agreementOrigins(list: string | undefined): string[] {
  if (list === undefined) return [...REFERENCE_AGREEMENT_ORIGINS];
  const origins: string[] = [];
  for (const given of list.split(',').map((origin) => origin.trim())) {
    if (given === '') continue;
    let url: URL | undefined;
    try {
      url = new URL(given);
    } catch {
      // said below
    }
    const bare = url !== undefined && url.origin === given.replace(/\/$/, '').toLowerCase();
    const secure = url?.protocol === 'https:' || (url?.protocol === 'http:' && isLoopbackHost(url.hostname));
    if (url === undefined || !bare || !secure)
      throw new ConfigError(
        `--agreement-origins: ${given} is not an origin: give https://host or https://host:port, comma-separated (http only to this machine)`,
        'E_USAGE',
      );
    origins.push(url.origin);
  }
  if (origins.length === 0)
    throw new ConfigError('--agreement-origins: name at least one origin, such as https://request.network', 'E_USAGE');
  return origins;
}

/** Whether an address is one of the proxies `--trust-proxy` names (`hop`: 0 for the connection's own peer). */
export type TrustedProxy = (address: string, hop: number) => boolean;

/**
 * The proxies `--trust-proxy` names, compiled once by the same code Fastify trusts forwarded headers with; undefined
 * when none is named. A list it cannot read is a usage error naming the address.
 */
function trustedProxies(list: string | undefined): TrustedProxy | undefined {
  if (list === undefined) return undefined;
  const addresses = list
    .split(',')
    .map((address) => address.trim())
    .filter((address) => address !== '');
  if (addresses.length === 0)
    throw new ConfigError('--trust-proxy: name at least one IP address or CIDR (10.0.0.5, 10.0.0.0/24)', 'E_USAGE');
  try {
    return proxyAddr.compile(addresses);
  } catch (error) {
    throw new ConfigError(
      `--trust-proxy: ${(error as Error).message}: give IP addresses or CIDRs, comma-separated (10.0.0.5,10.0.0.0/24)`,
      'E_USAGE',
    );
  }
}

/**
 * `payer-onboard link new|revoke ID...`: where the links are kept (the store of serve's state dir, for its service and
 * key) and where they lead.
 */
export const LINK_OPTIONS = {
  publicUrl: {
    ...SERVE_OPTIONS.publicUrl,
    describe:
      "serve's address behind your TLS proxy, as serve is given it (`https://payers.example.com`): `new` makes links to it",
  },
  linkDays: SERVE_OPTIONS.linkDays,
  ...FORGET_OPTIONS,
  stateDir: {
    ...FORGET_OPTIONS.stateDir,
    defaultText: `\`.payer-onboard\` in \`--inbox\`, else ${FORGET_OPTIONS.stateDir.defaultText}`,
    describe: "serve's state dir, whose store (`payer-onboard.db`) keeps the links",
  },
} as const satisfies Record<string, OptionDef>;
