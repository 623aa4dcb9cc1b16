import { setImmediate } from 'node:timers/promises';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { readOwnCsv } from '../output/readOwnCsv.js';
import type { JournalPlace } from '../journal/openJournal.js';
import type { MailRecord, PayerFilter, PayerLink, PayerTables, SignatureRecord, Store } from '../store/Store.js';
import { isAccountNotice, type JournaledPayer, journaledPayers } from '../journal/RowJournal.js';
import { agreementCompleted, knownWord, kycDone, kycRejected } from '../plan/verdict.js';
import { type Category, mailRefusal } from '../status/payerStatus.js';
import { type PayerWho, payerWho, whoOf } from '../report/payerNames.js';

/** One payer as the Payers page shows it: where it stands, its links, and what the journal saw of it when. */
export interface PayerLine {
  clientUserId: string;
  userId: string;
  category: Category;
  kycStatus: string;
  agreementStatus: string;
  /** What the journal or the last read says of its bank accounts, in words. */
  bank: string;
  kycUrl: string;
  agreementUrl: string;
  /** When the journal first saw the payer, and when a run or a read last asked the service about it. */
  since: string;
  checkedAt: string;
  /** The last run's or read's words on what is wrong or awaited. */
  error: string;
  /** A read of the service (status.csv) is newer than the payer's last row: its words are the service's of now. */
  read?: boolean;
  /** The mails serve sent the payer and what came of them: read from the store as the page is shown, never kept. */
  mail?: PayerMail;
  /**
   * Who the payer is, from the payer directory as the page is shown (never kept with the line: an entry changed or
   * forgotten shows at once); none without an entry.
   */
  who?: PayerWho;
}

/** What the team sees of a payer's mails: when each went, whether its link was opened, and how the payer signed. */
export interface PayerMail {
  invitedAt?: string;
  remindedAt?: string;
  /** The first time any of its links was opened. */
  openedAt?: string;
  /** The payer signed the agreement on their own page. */
  signedAt?: string;
  /** The last mail was refused by the mail server: its reason (never the address). */
  refused?: string;
  /** The last notice that a bank account was added to their record. */
  accountNoticeAt?: string;
  /** An invitation or reminder to send, or being sent, or no longer to be sent, in words. */
  next?: string;
}

/** The latest line of a payer in the inbox's results.csv files, and in its status.csv files, each with its time. */
interface Seen {
  row?: { at: number; cells: Record<string, string> };
  status?: { at: number; cells: Record<string, string> };
}

/** The cells of each file a payer's line is made from (the rest of a results.csv line says nothing of where it stands). */
const KEPT = {
  row: ['outcome', 'error', 'userId', 'kycStatus', 'agreementStatus', 'paymentDetailId', 'kycUrl', 'agreementUrl'],
  status: ['payable', 'bankAccounts', 'checkedAt', 'error'],
} as const;

/**
 * Payers taken in at a time before the event loop is let go (a 100,000-row results.csv never holds up a webhook), and
 * few enough that the journal looks each one up by its key rather than reading every payer.
 */
const CHUNK = 200;

/** What of the payers a page shows: a category, the ids holding a text, which page of them. */
export interface PayerView {
  category?: Category | undefined;
  /** Part of a clientUserId, any case. */
  search?: string | undefined;
  /** 1-based. */
  page: number;
}

/**
 * What a line kept in the store is made of: a serve of an older version kept other words, and its files are taken in
 * again (once) under this mark.
 */
const LINE_VERSION = 'v2';

/** Payers the CSV download and the first read take from the store at a time: their lines are held meanwhile. */
const SPAN = 10_000;

/** What a page of payers shows: its lines, the counts by category, and how many the view finds in all. */
export interface PayerPage {
  lines: PayerLine[];
  /** Where serve's mails stand (`on: ...`, `off: why`, `paused ...`). */
  mailState: string;
  counts: Map<Category, number>;
  all: number;
  found: number;
}

/**
 * The payers serve has run, kept in the store: from each run's results.csv (ids, links, the row's outcome), the
 * status.csv of its checks (the service's word on the bank accounts: only a read says a payer is payable) and the
 * journal (the statuses last seen). Nothing is asked of the service here. A results file is taken in once, when it is
 * new or changed (read as a stream, a chunk of payers at a time), and the pages are queries of the store, paged.
 */
export class PayerBook {
  private dirty = true;
  private syncing: Promise<void> | undefined;
  /** The counts by category, and how many payers each category finds, as of the last file taken in. */
  private counts: Map<string, number> | undefined;
  private readonly found = new Map<string, number>();

  constructor(
    private readonly resultsDir: string,
    /** The journal's place, its store open (serve's). */
    private readonly journal: JournalPlace & { open: Store },
    /** Where serve's mails stand (`on: ...`, `off: why`, `paused ...`), for the page to say. */
    readonly mailState: () => string = () => 'off',
  ) {}

  /** What serve did since is taken in before the next page is shown. */
  changed(): void {
    this.dirty = true;
  }

  async page(view: PayerView, size: number): Promise<PayerPage> {
    const tables = await this.fresh();
    const filter = { category: view.category, search: view.search };
    // Counts change only when a file is taken in: kept till then, so paging through a category counts once.
    if (this.counts === undefined) {
      const counts = new Map<string, number>();
      for await (const { within } of this.spans(tables, {}))
        for (const [category, n] of await tables.counts(within!)) counts.set(category, (counts.get(category) ?? 0) + n);
      this.counts = counts;
    }
    // A search reads every payer (and who each is, as the directory has them now): counted and paged in one pass.
    if (view.search !== undefined) return this.searched(tables, filter, view.page, size);
    const key = JSON.stringify(filter);
    let found = this.found.get(key);
    if (found === undefined) {
      found = 0;
      for await (const span of this.spans(tables, filter)) found += await tables.count(span);
      this.found.set(key, found);
    }
    const pages = Math.max(1, Math.ceil(found / size));
    const page = Math.min(Math.max(1, view.page), pages);
    const texts: string[] = [];
    let skip = (page - 1) * size;
    for await (const span of this.spans(tables, filter)) {
      const got = await tables.find(span, 0, skip + size - texts.length);
      texts.push(...got.slice(skip));
      skip = Math.max(0, skip - got.length);
      if (texts.length >= size) break;
    }
    return this.shown(texts, found);
  }

  /** A page of a search: the places of every payer it finds, a stretch of the store at a time, then the page's lines. */
  private async searched(tables: PayerTables, filter: PayerFilter, asked: number, size: number): Promise<PayerPage> {
    const places: number[] = [];
    for await (const span of this.spans(tables, filter)) places.push(...(await tables.places(span)));
    const page = Math.min(Math.max(1, asked), Math.max(1, Math.ceil(places.length / size)));
    return this.shown(await tables.at(places.slice((page - 1) * size, page * size)), places.length);
  }

  private async shown(texts: readonly string[], found: number): Promise<PayerPage> {
    const counts = this.counts ?? new Map<string, number>();
    const all = [...counts.values()].reduce((a, b) => a + b, 0);
    const lines = await this.withPeople(texts.map((text) => JSON.parse(text) as PayerLine));
    return { lines, mailState: this.mailState(), counts: counts as Map<Category, number>, all, found };
  }

  /**
   * The filter over stretches of the order, each queried in a turn of the event loop of its own: a search reads every
   * id, and 100,000 of them read at once would hold a webhook up for a tenth of a second.
   */
  private async *spans(tables: PayerTables, filter: PayerFilter, span = tables.span): AsyncGenerator<PayerFilter> {
    const last = await tables.lastPlace();
    for (let from = 1; from <= last; from += span) {
      await setImmediate();
      yield { ...filter, within: [from, Math.min(from + span, last + 1)] };
    }
  }

  /** One payer, its statuses from the journal as of now. */
  async line(clientUserId: string): Promise<PayerLine | undefined> {
    const stored = (await (await this.fresh()).get([clientUserId])).get(clientUserId);
    if (stored === undefined) return undefined;
    const journal = await journaledPayers(this.journal, [clientUserId]);
    const [line] = await this.withPeople([
      payerLine(clientUserId, JSON.parse(stored.seen) as Seen, journal(clientUserId)),
    ]);
    return line;
  }

  /**
   * The lines with who each payer is and their mails, as the store has them now: four lookups for a page, however
   * many payers.
   */
  private async withPeople(lines: PayerLine[]): Promise<PayerLine[]> {
    const ids = lines.map((line) => line.clientUserId);
    const directory = this.journal.open.directory(this.journal.service);
    const [entries, mails, links, signatures] = await Promise.all([
      directory.entries(ids),
      directory.mails(ids),
      directory.links(ids),
      directory.signatures(ids),
    ]);
    const of = <T extends { clientUserId: string }>(all: readonly T[], id: string) =>
      all.filter((item) => item.clientUserId === id);
    return lines.map((line) => {
      const id = line.clientUserId;
      const mail = payerMail(of(mails, id), of(links, id), signatures.get(id));
      const who = payerWho(entries.get(id));
      return { ...line, ...(Object.keys(mail).length === 0 ? {} : { mail }), ...(who ? { who } : {}) };
    });
  }

  /** Who these payers are, from the payer directory as it is now. */
  who(clientUserIds: readonly string[]): Promise<ReadonlyMap<string, PayerWho>> {
    return whoOf(clientUserIds, (ids) => this.journal.open.directory(this.journal.service).entries(ids));
  }

  /**
   * The payers whose bank account was stored and that no read has seen since: a serve that was not following the
   * approvals (the page off, no webhooks) never learned that the provider approved it. What the page's first read asks.
   */
  async unread(): Promise<string[]> {
    const tables = await this.fresh();
    const ids: string[] = [];
    for await (const span of this.spans(tables, { category: 'bank-pending' }, SPAN))
      for (const text of await tables.find(span, 0, SPAN)) {
        const line = JSON.parse(text) as PayerLine;
        if (line.read !== true && line.bank.startsWith('stored')) ids.push(line.clientUserId);
      }
    return ids;
  }

  /** Every payer of the view, a stretch of the store at a time (for the CSV download and the refresh). */
  async *each(view: Pick<PayerView, 'category' | 'search'>): AsyncGenerator<PayerLine> {
    const tables = await this.fresh();
    for await (const span of this.spans(tables, { category: view.category, search: view.search }, SPAN))
      for (const text of await tables.find(span, 0, SPAN)) yield JSON.parse(text) as PayerLine;
  }

  /** The store's payers with every results file taken in (one taking in at a time; a change meanwhile, once more). */
  private async fresh(): Promise<PayerTables> {
    while (this.dirty || this.syncing !== undefined) {
      if (this.syncing === undefined) {
        this.dirty = false;
        this.syncing = this.takeIn().finally(() => {
          this.syncing = undefined;
        });
      }
      await this.syncing.catch((error: unknown) => {
        this.dirty = true;
        throw error;
      });
    }
    return this.tables();
  }

  private tables(): PayerTables {
    return this.journal.open.payers(this.journal.service);
  }

  /** Every results.csv and status.csv under results/ that is new or changed since it was taken in. */
  private async takeIn(): Promise<void> {
    if (!existsSync(this.resultsDir)) return;
    const tables = this.tables();
    const known = await tables.sources();
    for (const folder of readdirSync(this.resultsDir).sort()) {
      for (const [file, kind] of [
        ['results.csv', 'row'],
        ['status.csv', 'status'],
      ] as const) {
        const path = join(this.resultsDir, folder, file);
        let mtimeMs: number;
        try {
          mtimeMs = statSync(path).mtimeMs;
        } catch {
          continue;
        }
        if (known.get(`${LINE_VERSION}:${path}`) === mtimeMs) continue;
        this.counts = undefined;
        this.found.clear();
        await this.takeFile(tables, path, kind, mtimeMs);
      }
    }
  }

  private async takeFile(tables: PayerTables, path: string, kind: keyof Seen, at: number): Promise<void> {
    let chunk = new Map<string, Record<string, string>>();
    const flush = async () => {
      const stored = await tables.get([...chunk.keys()]);
      const journal = await journaledPayers(this.journal, chunk.keys());
      const payers = [...chunk].map(([id, cells]) => {
        const seen = JSON.parse(stored.get(id)?.seen ?? '{}') as Seen;
        if ((seen[kind]?.at ?? -1) <= at) seen[kind] = { at, cells };
        const line = payerLine(id, seen, journal(id));
        return { clientUserId: id, category: line.category, line: JSON.stringify(line), seen: JSON.stringify(seen) };
      });
      await tables.put(payers, []);
      chunk = new Map();
      // A webhook or a page waiting meanwhile is answered before the next chunk.
      await setImmediate();
    };
    for await (const record of readOwnCsv(path)) {
      const id = record.clientUserId ?? '';
      // A run stopped midway leaves rows `skipped`: they say nothing new of their payer.
      if (!id || (kind === 'row' && record.outcome === 'skipped')) continue;
      chunk.set(id, Object.fromEntries(KEPT[kind].map((c) => [c, record[c] ?? ''])));
      if (chunk.size >= CHUNK) await flush();
    }
    if (chunk.size > 0) await flush();
    await tables.put([], [[`${LINE_VERSION}:${path}`, at]]);
  }
}

/** A payer's mails, links and signature as the team reads them. */
function payerMail(
  mails: readonly MailRecord[],
  links: readonly PayerLink[],
  signature: SignatureRecord | undefined,
): PayerMail {
  // A bank-added mail is a notice, not a step of the invitation: neither a reminder nor what the invitation waits for.
  const steps = mails.filter((m) => !isAccountNotice(m.step));
  const lastSent = (of: readonly MailRecord[]) =>
    of
      .filter((m) => m.state === 'sent')
      .map((m) => m.at)
      .sort()
      .at(-1);
  const opened = links.flatMap((link) => (link.openedAt ? [link.openedAt] : [])).sort()[0];
  const refusal = mailRefusal(mails);
  const waiting = steps
    .filter((m) => m.state === 'due' || m.state === 'sending' || m.state === 'dropped')
    .sort((a, b) => (a.at < b.at ? -1 : 1))[0];
  const next =
    waiting === undefined
      ? undefined
      : waiting.state === 'sending'
        ? `${waiting.step} being sent`
        : waiting.state === 'dropped'
          ? `${waiting.step} not sent: ${waiting.reason ?? ''}`
          : `${waiting.step} due ${waiting.at}`;
  const mail: PayerMail = {};
  const invitedAt = lastSent(steps.filter((m) => m.step === 'invitation'));
  const remindedAt = lastSent(steps.filter((m) => m.step !== 'invitation'));
  const accountNoticeAt = lastSent(mails.filter((m) => isAccountNotice(m.step)));
  if (invitedAt) mail.invitedAt = invitedAt;
  if (remindedAt) mail.remindedAt = remindedAt;
  if (accountNoticeAt) mail.accountNoticeAt = accountNoticeAt;
  if (opened) mail.openedAt = opened;
  if (signature?.how === 'page') mail.signedAt = signature.at;
  if (refusal) mail.refused = refusal.reason ?? '';
  if (next) mail.next = next;
  return mail;
}

/**
 * Where a payer stands, in the status command's categories: a read of its accounts (status.csv) says payable or
 * failed; otherwise the journal's statuses say what it waits for; a payer the journal never registered has rows to
 * fix, unless its row says the service refused its identity check (then it is contacted: nothing in the row is wrong).
 */
function payerLine(clientUserId: string, seen: Seen, journal: JournaledPayer | undefined): PayerLine {
  const row = seen.row?.cells ?? {};
  const status = seen.status?.cells;
  const readLater = status !== undefined && (seen.row === undefined || seen.status!.at >= seen.row.at);
  const verdict = journal ?? { kycStatus: row.kycStatus, agreementStatus: row.agreementStatus };
  const accounts = journal?.accounts ?? (row.paymentDetailId ? 1 : 0);
  const failedRead = readLater && /failed=[1-9]/.test(status?.bankAccounts ?? '');
  let category: Category;
  if (readLater && status?.payable === 'true') category = 'payable';
  else if (kycRejected(verdict)) category = 'kyc-rejected';
  else if (journal === undefined && (row.outcome === 'invalid' || row.outcome === 'failed')) category = 'fix-rows';
  else if (journal === undefined) category = 'not-registered';
  else if (!kycDone(verdict)) category = knownWord('kycStatus', verdict.kycStatus) ? 'kyc-pending' : 'word-to-check';
  else if (!agreementCompleted(verdict))
    category = knownWord('agreementStatus', verdict.agreementStatus) ? 'agreement-pending' : 'word-to-check';
  else if (failedRead) category = 'bank-failed';
  else category = 'bank-pending';
  return {
    clientUserId,
    userId: journal?.userId ?? row.userId ?? '',
    category,
    kycStatus: verdict.kycStatus ?? '',
    agreementStatus: verdict.agreementStatus ?? '',
    bank: bankWords(category, verdict, accounts, failedRead, readLater),
    kycUrl: journal?.kycUrl ?? row.kycUrl ?? '',
    agreementUrl: journal?.agreementUrl ?? row.agreementUrl ?? '',
    since: journal?.since ?? '',
    checkedAt: (readLater ? status?.checkedAt : undefined) ?? journal?.checkedAt ?? '',
    error: (readLater ? status?.error : row.error) ?? '',
    ...(readLater ? { read: true } : {}),
  };
}

/** Where the payer's bank account is, in words that agree with its KYC and agreement beside them. */
function bankWords(
  category: Category,
  verdict: Parameters<typeof kycDone>[0],
  accounts: number,
  failedRead: boolean,
  readLater: boolean,
): string {
  if (category === 'payable') return 'approved';
  if (failedRead) return 'failed its check';
  if (accounts > 0) return readLater ? 'stored, the provider is still checking it' : 'stored, being checked';
  if (category === 'kyc-rejected') return 'not sent: KYC rejected';
  if (category === 'fix-rows' || category === 'not-registered') return 'none';
  const kyc = !kycDone(verdict);
  const agreement = !agreementCompleted(verdict);
  if (kyc && agreement) return 'waits for KYC and the agreement';
  if (kyc) return 'waits for KYC';
  if (agreement) return 'waits for the agreement';
  return 'none stored yet: the next run of their rows attaches it';
}
