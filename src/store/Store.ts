import type { Holder } from './holder.js';

/**
 * What the tool remembers, behind one interface: the journal of one service and key (what was sent and answered,
 * its payers, their history). Every method is asynchronous, so that a store on a server fits it as well as the
 * embedded one; the embedded one answers at once.
 */

/** A call the service may have carried out: sent (in doubt until its answer), or done with what it answered. */
export type CallRecord =
  | { state: 'sent'; answer?: Record<string, string> }
  | { state: 'done'; status: number; answer: Record<string, string> };

/** What the journal knows of one payer, field by field. */
export interface PayerRecord {
  /** The digest of the compliance body registered, and of each of its fields (to name the columns that changed). */
  digest?: string;
  fieldDigests?: string;
  userId?: string;
  agreementUrl?: string;
  kycUrl?: string;
  kycStatus?: string;
  agreementStatus?: string;
  /** The service's verdict at the last read that gave one. */
  isCompliant?: boolean;
  /** A run completed the payer's agreement (or found it completed). */
  agreementDone: boolean;
  /** The stored accounts the payer's rows hold: account key and id. */
  accountIds: Array<[string, string]>;
  /** Every account of the payer is known here (it saw the payer behind the KYC gate, or a read listed nothing new). */
  accountsKnown: boolean;
  /** ISO times: first seen, and last asked about or registered. */
  since?: string;
  checkedAt?: string;
}

/** One change of a payer's statuses or accounts, as a run saw it. */
export interface PayerChange {
  at: string;
  kycStatus?: string;
  /** `completed` once the agreement is done, else the status last seen. */
  agreementStatus?: string;
  accounts: number;
}

/** One thing to write; a batch of them is written in one transaction. */
export type JournalWrite =
  /** A call's record; none when it certainly changed nothing (neither done nor in doubt). */
  | { call: string; record: CallRecord | undefined }
  /** With the payer's clientUserId where the writer knows it: kept beside each of its account ids. */
  | { payer: string; record: PayerRecord; clientUserId?: string | undefined }
  | { setting: string; value: string | undefined }
  /** A payer's directory entry, written with the payer's other records. */
  | { directory: DirectoryEntry }
  /** How a payer's agreement was signed, written with the record of its completion (the first stands). */
  | { signature: SignatureRecord }
  /** A line of the audit trail, written with what it tells of: it is there exactly when that is. */
  | { audit: AuditLine }
  /** A mail a run calls for, written with what calls for it: only where the payer has no record of its step yet. */
  | { mail: MailRecord };

/** The journal of one service and key. */
export interface JournalTables {
  readonly service: string;
  call(key: string): Promise<CallRecord | undefined>;
  payer(key: string): Promise<PayerRecord | undefined>;
  /** The payers with these keys, or every payer of the service. */
  payers(keys?: Iterable<string>): Promise<Map<string, PayerRecord>>;
  /** `limit` payers whose keys come after `after` (`''`: the first), in the order of their keys: a pass a page at a time. */
  payersAfter(after: string, limit: number): Promise<Array<[string, PayerRecord]>>;
  payerKeyOfUser(userId: string): Promise<string | undefined>;
  /** The payer a stored bank account's id is of (one of its `accountIds`), and its clientUserId where it was kept. */
  payerOfAccount(accountId: string): Promise<{ key: string; clientUserId?: string } | undefined>;
  /**
   * The clientUserIds of payers a run gave a new bank account between `from` and `to` (ISO times; known by their
   * clientUserId): their accounts' checks may have ended while serve could take no webhook.
   */
  payersWithNewAccounts(from: string, to: string): Promise<string[]>;
  /** The payer's changes, oldest first. */
  changes(key: string): Promise<PayerChange[]>;
  setting(name: string): Promise<string | undefined>;
  /** Writes the batch in one transaction: all of it or, when it throws, none. */
  write(batch: readonly JournalWrite[]): Promise<void>;
  /** Removes everything of the service and key. */
  forget(): Promise<void>;
}

/** A webhook delivery as stored: its id (the body's digest), when it came, what it said (JSON), when it was acted on. */
export interface StoredEvent {
  id: string;
  at: string;
  body: string;
  doneAt?: string;
}

/** The webhooks serve received for one service and key. */
export interface EventTables {
  /** Records the delivery, durably, unless it came since `sameSince` already: false then. */
  record(event: StoredEvent, sameSince: string): Promise<boolean>;
  /** The deliveries not yet acted on, oldest first. */
  pending(): Promise<StoredEvent[]>;
  done(ids: readonly string[], at: string): Promise<void>;
  /** Forgets the deliveries acted on that came before this. */
  prune(before: string): Promise<void>;
}

/** A web page session as stored: the hash of its token, its CSRF token, when it ends and when it was last used. */
export interface StoredSession {
  tokenHash: string;
  /** Which shared password it was opened with: a session of another one is never taken ('' for a named user's). */
  passwordMark: string;
  /** The named user's whose it is; none for one opened with the shared password. */
  userId?: string;
  csrf: string;
  endsAt: number;
  seenAt: number;
}

/** A file uploaded on the web page, as stored: what was found in and done to it, and the changes made (JSON each). */
export interface StoredUpload {
  id: string;
  at: string;
  upload: string;
  fixes: string;
}

/** What the web page of one service and key keeps: its sessions, the mappings saved by header, its uploads. */
export interface WebTables {
  /** The session with this hash, if it was not ended. */
  session(tokenHash: string): Promise<StoredSession | undefined>;
  /** A session opened now. */
  putSession(session: StoredSession): Promise<void>;
  /** A session's last use; a session ended meanwhile (signed out elsewhere) stays ended. */
  touchSession(tokenHash: string, seenAt: number): Promise<void>;
  /** Ends the sessions with these hashes, or every one. */
  deleteSessions(tokenHashes?: readonly string[]): Promise<void>;
  mappings(): Promise<Map<string, string>>;
  putMapping(headerKey: string, mapping: string): Promise<void>;
  /** An upload, with the name it is sent as once a serve claimed it (`claimUpload`), whatever its JSON says. */
  upload(id: string): Promise<(StoredUpload & { sentAs?: string }) | undefined>;
  /** The file as uploaded, while it is kept. */
  uploadContent(id: string): Promise<Uint8Array | undefined>;
  /** An upload, new (with its file) or changed (`content` undefined: the file kept as it is; null: the file goes). */
  putUpload(upload: StoredUpload, content?: Uint8Array | null): Promise<void>;
  /**
   * Marks the upload sent as `sentAs` unless it was already (by another serve over the same store): whether this one
   * sends it. `undefined` takes a mark back (the file could not be put into the inbox).
   */
  claimUpload(id: string, sentAs: string | undefined): Promise<boolean>;
  /** The uploads with these ids, or those that came before `before` (ISO), go whole. */
  deleteUploads(which: { ids: readonly string[] } | { before: string }): Promise<void>;
}

/** What a user may do on the web page: each role includes the ones before it. */
export const ROLES = ['viewer', 'preparer', 'approver', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/** A named user of the web page. */
export interface WebUser {
  id: string;
  name: string;
  email?: string;
  role: Role;
  /** scrypt, `salt:hash` in hex; none until they set one (or ever, signing in through the identity provider). */
  passwordHash?: string;
  createdAt: string;
  /** Who created them: a user's name, or the OS user and host of the command line. */
  createdBy: string;
  disabledAt?: string;
}

/** A one-time link to set a user's password: the token only as its hash. */
export interface UserLink {
  tokenHash: string;
  userId: string;
  createdAt: string;
  expiresAt: string;
}

/** Wrong sign-in tries counted against one thing: how many since the last success, and when the next may come. */
export interface SignInTries {
  failures: number;
  /** Epoch ms before which a try is refused unread. */
  nextTryAt: number;
  /** countTry's: false when this try was not counted, another having made it wait meanwhile. */
  counted?: boolean;
}

/** One line of the audit trail. `detail` is JSON, personal values masked; `seq` is given by the store. */
export interface AuditLine {
  seq?: number;
  /** ISO time. */
  at: string;
  /** A user's name, `shared password`, or `os:USER@HOST` for the command line and the inbox. */
  who: string;
  /** The client address, or the host of a command line run. */
  address: string;
  action: string;
  /** What it was done to: an upload's, a user's, a run's or a payer's id. */
  subject: string;
  detail: string;
}

/** Which audit lines: by whom, of what action, of what subject, within a time (ISO, from included, to excluded). */
export interface AuditFilter {
  who?: string | undefined;
  action?: string | undefined;
  subject?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
}

/** The team's controls of one service and key: its users, their links, sign-in tries, and the audit trail. */
export interface ControlTables {
  users(): Promise<WebUser[]>;
  user(which: { id: string } | { name: string } | { email: string }): Promise<WebUser | undefined>;
  /** A new user (false when the name is taken); the shared password's sessions end. */
  addUser(user: WebUser): Promise<boolean>;
  /**
   * A change of a user. One disabled, or whose password was set (at `passwordSetAt`, ISO), is signed out everywhere
   * and their unused one-time links are spent.
   */
  putUser(user: WebUser, passwordSetAt?: string): Promise<void>;
  addUserLink(link: UserLink): Promise<void>;
  /** Uses a link once: its user, when it exists, is not used and has not expired at `at` (ISO). */
  takeUserLink(tokenHash: string, at: string): Promise<string | undefined>;
  /**
   * Counts one try against each key at once (before the password is read, so that tries sent together all count),
   * and returns each key's count with the wait `waitOf` gives a count; in one transaction.
   */
  countTry(
    keys: readonly string[],
    at: number,
    waitOf: (failures: number) => number,
  ): Promise<Map<string, SignInTries>>;
  /** What the keys' counts are, without counting. */
  tries(keys: readonly string[]): Promise<Map<string, SignInTries>>;
  /** A success: the keys' counts start again. */
  clearTries(keys: readonly string[]): Promise<void>;
  /** A try that was no guess: its own count taken back (one less on each key, and the wait of that), the others' kept. */
  uncountTry(keys: readonly string[], waitOf: (failures: number) => number): Promise<void>;
  /** Forgets the counts last touched before `before` (epoch ms); at most `limit` of them. */
  pruneTries(before: number, limit: number): Promise<number>;
  /** Appends lines, in one transaction, in order. */
  audit(lines: readonly AuditLine[]): Promise<void>;
  /** The lines the filter keeps, newest first: `limit` of them after `offset`. */
  auditLines(filter: AuditFilter, offset: number, limit: number): Promise<AuditLine[]>;
  auditCount(filter: AuditFilter): Promise<number>;
}

/** A file of rows waiting on their payers: its name as dropped, its format, and its parts' shape (JSON). */
export interface WaitingFile {
  id: string;
  name: string;
  format: string;
  shape: string;
  addedAt: string;
}

/** One row waiting on its payer: which part of its file, its payer, its cells as read (JSON), the steps it carries. */
export interface WaitingRow {
  seq: number;
  part: number;
  payerKey: string;
  clientUserId: string;
  original: string;
  completedSteps: string;
}

/** Where a waiting row is, and whose it is: what choosing rows to run needs (not their cells). */
export interface WaitingPlace {
  fileId: string;
  seq: number;
  payerKey: string;
  clientUserId: string;
}

/** The rows of one service and key waiting on their payers, by file and by payer. */
export interface WaitingTables {
  file(id: string): Promise<WaitingFile | undefined>;
  /** The rows of these payers (by the journal's key), each file's in order. */
  ofPayers(keys: readonly string[]): Promise<WaitingPlace[]>;
  /**
   * `limit` rows after `after` (by file, then row; `{ fileId: '', seq: 0 }` for the first) whose payer was last
   * checked before `at` (or never). Files are named by the run that kept them, so the oldest come first.
   */
  checkedBefore(at: string, after: { fileId: string; seq: number }, limit: number): Promise<WaitingPlace[]>;
  /** The rows of a file with these numbers, in order. */
  rows(fileId: string, seqs: readonly number[]): Promise<WaitingRow[]>;
  /** How many payers whose keys come after `after` have a row waiting, of the next `limit` rows; and the last key. */
  payerCount(after: string, limit: number): Promise<{ payers: number; last: string | undefined }>;
  /**
   * A file kept a chunk at a time (a pending file of 100,000 rows kept in one transaction would hold the process a
   * second): `clear` its rows and itself first, `append` its rows, then `register` it. Until then its rows are found
   * but not run (a run needs the file).
   */
  clear(fileId: string): Promise<void>;
  append(fileId: string, rows: ReadonlyArray<Omit<WaitingRow, 'seq'>>): Promise<void>;
  register(file: WaitingFile): Promise<void>;
  /**
   * In one transaction: the rows with these numbers go, `added` take the numbers after
   * the file's last (the file is created with them if new), and a file with no row left goes.
   */
  replace(file: WaitingFile, gone: readonly number[], added: ReadonlyArray<Omit<WaitingRow, 'seq'>>): Promise<void>;
}

/** A payer as the web page keeps it: its line (JSON), its category, and what it was made from (JSON). */
export interface StoredPayer {
  clientUserId: string;
  category: string;
  line: string;
  seen: string;
}

/**
 * Which payers of the web page: of a category, whose id, or name, e-mail or company in the payer directory, holds a
 * text (any case), in a stretch of the order.
 */
export interface PayerFilter {
  category?: string | undefined;
  search?: string | undefined;
  /** The stretch of the order first seen: from this place, before that one. */
  within?: readonly [from: number, before: number] | undefined;
}

/** The web page's payers of one service and key, and the results files they were made from. */
export interface PayerTables {
  /**
   * Payers a query of the page may read at once: the embedded store reads in the process's own thread (a query of
   * 100,000 holds a webhook up for a tenth of a second), a server does not (and one query costs it less than ten).
   */
  readonly span: number;
  /** The results files taken in, with their time then. */
  sources(): Promise<Map<string, number>>;
  get(ids: readonly string[]): Promise<Map<string, StoredPayer>>;
  /** In one transaction: the payers (new ones after the others), and the files they were made from. */
  put(payers: readonly StoredPayer[], sources: ReadonlyArray<readonly [path: string, mtimeMs: number]>): Promise<void>;
  /** How many payers of a stretch of the order each category has. */
  counts(within: readonly [from: number, before: number]): Promise<Map<string, number>>;
  /** The last place in the order first seen (0 with none). */
  lastPlace(): Promise<number>;
  count(filter: PayerFilter): Promise<number>;
  /** The lines of the payers the filter keeps, in the order first seen, `limit` of them after `offset`. */
  find(filter: PayerFilter, offset: number, limit: number): Promise<string[]>;
  /** The places in the order of the payers the filter keeps, in that order: a search counted and paged in one pass. */
  places(filter: PayerFilter): Promise<number[]>;
  /** The lines of the payers at these places, in the order given. */
  at(places: readonly number[]): Promise<string[]>;
}

/**
 * Who a payer is, as the latest run (or `directory import`) that read their row had it: what a mail to them and the
 * finance team's page need, and nothing else (never SSN, date of birth, bank numbers, phone or address). A business
 * payer may have no first name; a person no company.
 */
export interface DirectoryEntry {
  clientUserId: string;
  firstName?: string;
  lastName?: string;
  email?: string;
  companyName?: string;
  /** ISO time the entry was written with these values (a write of the same values leaves it). */
  updatedAt: string;
}

/** A payer's personal link to their page: the token only as its hash, and when it was made, ends, was revoked and opened. */
export interface PayerLink {
  /** sha-256 of the token, hex. */
  tokenHash: string;
  clientUserId: string;
  createdAt: string;
  expiresAt: string;
  revokedAt?: string;
  /** The first time the page was opened with it. */
  openedAt?: string;
}

/**
 * Where one mail to a payer stands: `due` to send once its time has come; `sending` written before the mail goes to
 * the server, so a crash cannot send it twice unseen; then `sent` or `refused`; `dropped` when it will never be sent
 * (the payer has nothing left to do).
 */
export type MailState = 'due' | 'sending' | 'sent' | 'refused' | 'dropped';

/** One mail of one payer, by its step (`invitation`, `reminder-1`...). */
export interface MailRecord {
  clientUserId: string;
  step: string;
  state: MailState;
  /** Why the mail server refused it, or why it is dropped, in a few words: never the address. */
  reason?: string;
  /** When the record was written; for a `due` mail, when it is due. */
  at: string;
}

/** Which records of the step a mail's record may replace: their states (`none`: the step has no record yet). */
export interface MailGuard {
  over: ReadonlyArray<MailState | 'none'>;
  /** Also a `sending` claimed before this time (ISO): a claim a crash left, never one still being sent. */
  claimedBefore?: string;
}

/** How a payer's agreement came to be signed: on their page, by the row (the team collected it), or by the operator's word for a whole file. */
export type SignedHow = 'page' | 'row' | 'elsewhere';

export interface SignatureRecord {
  clientUserId: string;
  how: SignedHow;
  at: string;
}

/** What `forget` did of one payer. */
export interface Forgotten {
  /** The directory entry was there and is gone. */
  entry: boolean;
  /** Links erased. */
  links: number;
  /** Mail records kept (with their reasons erased): they are what keeps a step's mail from going again. */
  mails: number;
  /** A signature record is kept: how and when the agreement was signed, for the record. */
  signature: boolean;
}

/**
 * What lets payers act for themselves, for one service and key: who each payer is (the directory), their personal
 * links, the mails sent to them and how their agreement was signed. Keyed by clientUserId, as the service knows them.
 */
export interface PayerDirectoryTables {
  /** The entries of these payers. */
  entries(clientUserIds: readonly string[]): Promise<Map<string, DirectoryEntry>>;
  /**
   * Writes the entries in one transaction: each replaces the payer's, unless it holds the same values (then the
   * stored one, and its time, stay).
   */
  putEntries(entries: readonly DirectoryEntry[]): Promise<void>;
  addLink(link: PayerLink): Promise<void>;
  link(tokenHash: string): Promise<PayerLink | undefined>;
  /** Revokes every link of the payer not revoked yet: how many. */
  revokeLinks(clientUserId: string, at: string): Promise<number>;
  /** Notes the link's first opening (a later one changes nothing). */
  openedLink(tokenHash: string, at: string): Promise<void>;
  /**
   * Writes a mail's record where `guard` allows it: whether it was written. By default `sending` is written only where
   * the step has no record, a due one or a refused one, so that of two processes about to send the same mail only one
   * may (false for the other); `due` only where it has none or a refused one; `sent`, `refused` and `dropped` always.
   */
  putMail(mail: MailRecord, guard?: MailGuard): Promise<boolean>;
  /** The mail records of these payers, by payer then step. */
  mails(clientUserIds: readonly string[]): Promise<MailRecord[]>;
  /**
   * Up to `limit` mails to send now, the longest due first: `due` ones whose time is at or before `now`, and `sending`
   * ones claimed before `claimedBefore` (a crash's).
   */
  mailsDue(now: string, claimedBefore: string, limit: number): Promise<MailRecord[]>;
  /** Every link of these payers, oldest first. */
  links(clientUserIds: readonly string[]): Promise<PayerLink[]>;
  /** `limit` entries whose ids come after `after` (`''`: the first), in the order of their ids: a pass a page at a time. */
  entriesAfter(after: string, limit: number): Promise<DirectoryEntry[]>;
  /** Records how the payer's agreement was signed, unless it is recorded already (the first stands): whether this one was. */
  sign(signature: SignatureRecord): Promise<boolean>;
  signatures(clientUserIds: readonly string[]): Promise<Map<string, SignatureRecord>>;
  /**
   * Erases what could identify the payer beyond its id: the directory entry and the links, and the mail records'
   * reasons; in one transaction. Nothing of the payer: undefined.
   */
  forget(clientUserId: string): Promise<Forgotten | undefined>;
}

/** A hold of a service and key. */
export interface Hold {
  /**
   * The store as the holder writes it (never closed by it: its owner closes it): on a server shared by machines,
   * each batch it writes checks that the hold is still this one's, so a holder that comes back after another took
   * over writes nothing.
   */
  readonly store: Store;
  release(): Promise<void>;
  /**
   * Told once if the hold is lost while the run goes on (its lease ran out, another took it over): stop sending. The
   * function returned stops telling this listener.
   */
  onLost(listener: (why: string) => void): () => void;
}

export interface Store {
  /** Where it is, for messages: a file, never a URL with its password. */
  readonly location: string;
  journal(service: string): JournalTables;
  events(service: string): EventTables;
  web(service: string): WebTables;
  waiting(service: string): WaitingTables;
  payers(service: string): PayerTables;
  directory(service: string): PayerDirectoryTables;
  controls(service: string): ControlTables;
  /** The services and keys with a journal here. */
  services(): Promise<string[]>;
  /**
   * Whether what this store writes is still its holder's to write: false once the hold it is written under was lost
   * (checked again right before a call goes out, after its record was written).
   */
  stillHeld(): boolean;
  /**
   * Holds the service and key for this process until it is released, or turns it away naming the holder
   * (LockedError). Only a store shared by machines does anything here: one machine is held by its own lock.
   */
  hold(service: string, holder: Holder, using: string): Promise<Hold>;
  close(): Promise<void> | void;
}
