import { join, resolve } from 'node:path';
import { ConfigError } from '../core/errors.js';
import { journalMayHold, type JournalPlace } from '../journal/openJournal.js';
import { journaledPayers } from '../journal/RowJournal.js';
import { journalPlace, stateDirs, type UserPlaces } from '../journal/stateDir.js';
import { type MailSettingsInput, renderMail, resolveMailSettings } from '../mail/index.js';
import { resolveConnection, resolveDatabaseUrl } from '../options/connection.js';
import { resolveRunOptions } from '../options/resolve.js';
import { SERVE_OPTIONS } from '../options/serveOptions.js';
import { openStore } from '../store/openStore.js';
import type { MailRecord, PayerDirectoryTables, Store } from '../store/Store.js';
import { PAYER_LINK_PATH } from '../web/payerLinks.js';
import { type Asker, askInvitation, greetingName, INVITATION, nothingToAsk } from './invitationRules.js';

/** What `invite` is asked to do, and where the store is (as `run` finds it, or in serve's inbox). */
export interface InviteOptions {
  ids: readonly string[];
  allPending?: boolean;
  again?: boolean;
  dryRun?: boolean;
  preview?: boolean;
  html?: boolean;
  /** serve's inbox: its store is there unless `stateDir` (or the environment) says otherwise. */
  inbox?: string;
  baseUrl?: string;
  apiKeyFile?: string;
  stateDir?: string;
  databaseUrlFile?: string;
  publicUrl?: string;
  linkDays?: number;
  mail?: MailSettingsInput;
}

/** One payer's line: its id, the mail, and what was done or would be, in words. */
interface InviteLine {
  clientUserId: string;
  step: string;
  what: string;
  /** An invitation was asked for (or, with --dry-run, would be). */
  asked: boolean;
}

export interface InviteResult {
  lines: InviteLine[];
  /** With --preview: the mail as it would go, to print as it is. */
  preview?: string;
  /** Payers of --all-pending passed over, by why (nothing left to do, invited before...). */
  passedOver: Map<string, number>;
}

const PAGE = 500;
/** The mails --dry-run lists of what serve has to send, the soonest first. */
const LISTED = 1000;

/**
 * `invite`: asks serve to invite payers it did not invite by itself (payers registered before mails were on, or by
 * a run of the CLI), by writing their invitations as due in the store; serve's mail loop sends them. Sends nothing
 * itself: `--preview` renders a payer's next mail with a placeholder for the link, `--dry-run` says what would be
 * asked (or, alone, what serve has to send) and writes nothing.
 */
export async function invitePayers(options: InviteOptions, places: UserPlaces): Promise<InviteResult> {
  checkAsk(options);
  const place = storePlace(options, places);
  if (!journalMayHold(place))
    throw new ConfigError(
      `invite: no store at ${place.databaseUrl === undefined ? place.stateDir : 'the database'}: give serve's --inbox or --state-dir (and --base-url)`,
      'E_USAGE',
    );
  const store = await openStore(place);
  try {
    const journal = { ...place, open: store };
    const directory = store.directory(place.service);
    if (options.preview) return { lines: [], preview: await preview(options, journal, places), passedOver: new Map() };
    if (options.ids.length === 0 && !options.allPending)
      return { lines: await queue(directory), passedOver: new Map() };
    const passedOver = new Map<string, number>();
    const lines: InviteLine[] = [];
    const asker: Asker = options.again ? 'again' : options.allPending ? 'serve' : 'person';
    for await (const ids of idPages(options, directory)) {
      for (const line of await ask(ids, journal, asker, options.dryRun === true)) {
        if (options.allPending && !line.asked) passedOver.set(line.what, (passedOver.get(line.what) ?? 0) + 1);
        else lines.push(line);
      }
    }
    return { lines, passedOver };
  } finally {
    await store.close();
  }
}

function checkAsk(options: InviteOptions): void {
  const usage = (message: string) => new ConfigError(`invite: ${message}`, 'E_USAGE');
  if (options.preview && options.ids.length !== 1) throw usage('--preview renders the mail of one payer: give one id');
  if (options.preview && (options.allPending || options.again || options.dryRun))
    throw usage('--preview sends and writes nothing already: give it with one id alone');
  if (options.html && !options.preview) throw usage('--html goes with --preview');
  if (options.allPending && options.ids.length > 0) throw usage('give ids or --all-pending, not both');
  if (options.again && options.ids.length === 0)
    throw usage('--again sends a new invitation to the payers named: give their ids');
  if (!options.dryRun && !options.allPending && options.ids.length === 0)
    throw usage(
      'give the ids of the payers to invite, or --all-pending (--dry-run alone lists what serve has to send)',
    );
}

/** The journal's place as `run` finds it; serve's inbox keeps its state in `.payer-onboard` unless told otherwise. */
function storePlace(options: InviteOptions, places: UserPlaces): JournalPlace {
  const given = {
    ...(options.baseUrl === undefined ? {} : { baseUrl: options.baseUrl }),
    ...(options.apiKeyFile === undefined ? {} : { apiKeyFile: options.apiKeyFile }),
    ...(options.databaseUrlFile === undefined ? {} : { databaseUrlFile: options.databaseUrlFile }),
  };
  const stateDir =
    options.stateDir ??
    (options.inbox !== undefined && !places.env.PAYER_ONBOARD_STATE_DIR
      ? join(resolve(places.cwd, options.inbox), '.payer-onboard')
      : undefined);
  const run = resolveRunOptions({ ...given, ...(stateDir ? { stateDir } : {}), inputs: ['(invite)'] }, places.env);
  const { baseUrl, apiKey } = resolveConnection(run, places.env, places.cwd);
  const databaseUrl = resolveDatabaseUrl(run, places.env, places.cwd);
  return journalPlace(stateDirs(run.stateDir, places), baseUrl, apiKey, databaseUrl);
}

/** The payers to ask about, a page at a time: the ids given, or every payer of the directory. */
async function* idPages(options: InviteOptions, directory: PayerDirectoryTables): AsyncGenerator<string[]> {
  if (!options.allPending) {
    for (let i = 0; i < options.ids.length; i += PAGE) yield [...new Set(options.ids.slice(i, i + PAGE))];
    return;
  }
  for (let after = ''; ; ) {
    const page = await directory.entriesAfter(after, PAGE);
    if (page.length > 0) yield page.map((entry) => entry.clientUserId);
    if (page.length < PAGE) return;
    after = page.at(-1)!.clientUserId;
  }
}

/** Each payer's invitation asked for where the rules allow it (written as due, unless a dry run), or why not. */
async function ask(
  ids: string[],
  journal: JournalPlace & { open: Store },
  asker: Asker,
  dryRun: boolean,
): Promise<InviteLine[]> {
  const directory = journal.open.directory(journal.service);
  const payers = await journaledPayers(journal, ids);
  const entries = await directory.entries(ids);
  const invitations = new Map(
    (await directory.mails(ids)).filter((m) => m.step === INVITATION).map((m) => [m.clientUserId, m]),
  );
  const at = new Date().toISOString();
  const lines: InviteLine[] = [];
  for (const id of ids) {
    const line = (what: string, asked = false) => lines.push({ clientUserId: id, step: INVITATION, what, asked });
    const entry = entries.get(id);
    const not = nothingToAsk(payers(id)) ?? (entry?.email === undefined ? NO_ADDRESS : undefined);
    if (not !== undefined) {
      line(not);
      continue;
    }
    const decided = askInvitation(invitations.get(id), entry, asker);
    if ('not' in decided) line(decided.not);
    else if (dryRun) line('would be invited', true);
    else if (await directory.putMail({ clientUserId: id, step: INVITATION, state: 'due', at }, decided.guard))
      line('to invite: serve sends it', true);
    else line('changed meanwhile: run invite again');
  }
  return lines;
}

const NO_ADDRESS = 'no e-mail address in the directory: run their row with one first';

/** What serve has to send, the soonest first: each payer's mail due (with when) or being sent. */
async function queue(directory: PayerDirectoryTables): Promise<InviteLine[]> {
  const never = '9999-12-31T23:59:59.999Z';
  const mails = await directory.mailsDue(never, never, LISTED);
  const now = new Date().toISOString();
  return mails.map((mail: MailRecord) => ({
    clientUserId: mail.clientUserId,
    step: mail.step,
    what:
      mail.state === 'sending'
        ? `being sent since ${shown(mail.at)}`
        : mail.at <= now
          ? 'to send now'
          : `to send on ${shown(mail.at)}`,
    asked: true,
  }));
}

function shown(iso: string): string {
  return `${iso.slice(0, 16).replace('T', ' ')} UTC`;
}

/** A placeholder where the link would be: a preview issues none. */
const PLACEHOLDER_TOKEN = 'PREVIEW-no-link-issued';

/**
 * The payer's next mail (the invitation until one was sent, then a reminder) as serve would send it, with serve's
 * mail settings and a placeholder for the link: `To`, `Subject`, then the text (or the HTML).
 */
async function preview(
  options: InviteOptions,
  journal: JournalPlace & { open: Store },
  places: UserPlaces,
): Promise<string> {
  const id = options.ids[0]!;
  const directory = journal.open.directory(journal.service);
  const entry = (await directory.entries([id])).get(id);
  if (entry === undefined)
    throw new ConfigError(`invite: ${id} is not in the directory: run their row first`, 'E_USAGE');
  const given = options.mail ?? {};
  // A preview sends nothing: where mails would go matters not, so an outbox stands in for a server not given.
  const { settings } = resolveMailSettings(
    { ...given, mailOutbox: given.mailOutbox ?? places.cwd },
    places.env,
    places.cwd,
  );
  const invited = (await directory.mails([id])).some((m) => m.step === INVITATION && m.state === 'sent');
  const base = (options.publicUrl ?? 'https://payers.example.com').replace(/\/+$/, '');
  const days = options.linkDays ?? SERVE_OPTIONS.linkDays.default;
  const mail = renderMail(
    settings.templates,
    invited ? 'reminder' : 'invitation',
    {
      firstName: greetingName(entry),
      link: `${base}${PAYER_LINK_PATH}${PLACEHOLDER_TOKEN}`,
      deadline: new Date(Date.now() + days * 24 * 3_600_000),
      teamName: settings.teamName,
    },
    settings.timeZone,
  );
  return `To: ${entry.email ?? '(no address)'}\nSubject: ${mail.subject}\n\n${options.html ? mail.html : mail.text}`;
}
