import { ConfigError } from '../core/errors.js';

/**
 * The store's schema, as the versioned steps that build it: a store is at the version of the last step it ran, and a
 * start runs the steps it lacks, in order, each in one transaction with its version. Steps are only ever added at the
 * end; a step that shipped is never changed, since stores out there already ran it.
 *
 * Every table is per service: `service` names one base URL and key (`<host>-<hash>`, as the old journal folders were
 * named), so a rehearsal against a sandbox never makes a real run think its payers exist. Keys are hashes: the journal
 * holds no personal value, only ids, links, statuses and digests; a row waiting on its payer is kept whole (it is run
 * again from here), and only while it waits.
 */
export interface Migration {
  version: number;
  /** What the step adds, for the message of a store that is newer or older than this code. */
  name: string;
  sql: string;
  /** The step in PostgreSQL's words, where the two differ (their JSON functions do). */
  postgres?: string;
}

/** What step 12 makes the same on both backends: the audit trail's own table and triggers differ. */
const CONTROLS = `
      -- The web page's named users: each signs in with a password of their own (a scrypt hash, "salt:hash" in hex;
      -- none until they set it through a one-time link, or ever, for one who signs in through the company's identity
      -- provider), with a role (each includes the ones before it). A user is disabled, never deleted: the audit trail
      -- names them. Names and e-mail are compared in lower case (name_key, email_key).
      CREATE TABLE web_users (
        service TEXT NOT NULL,
        id TEXT NOT NULL,
        name TEXT NOT NULL,
        name_key TEXT NOT NULL,
        email TEXT,
        email_key TEXT,
        role TEXT NOT NULL CHECK (role IN ('viewer', 'preparer', 'approver', 'admin')),
        password_hash TEXT,
        created_at TEXT NOT NULL,
        created_by TEXT NOT NULL,
        disabled_at TEXT,
        PRIMARY KEY (service, id)
      );
      CREATE UNIQUE INDEX web_users_by_name ON web_users (service, name_key);
      CREATE INDEX web_users_by_email ON web_users (service, email_key);
      -- One-time links to set a user's password, by a hash of the token (the token only in the link handed over).
      CREATE TABLE web_user_links (
        service TEXT NOT NULL,
        token_hash TEXT NOT NULL,
        user_id TEXT NOT NULL,
        created_at TEXT NOT NULL,
        expires_at TEXT NOT NULL,
        used_at TEXT,
        PRIMARY KEY (service, token_hash)
      );
      -- A session is a named user's (user_id), or, with none, one opened with the shared password (password_mark).
      ALTER TABLE web_sessions ADD COLUMN user_id TEXT;
      CREATE INDEX web_sessions_by_user ON web_sessions (service, user_id);
      -- Wrong sign-in tries, by what they are counted against ('account:NAME', 'address:IP', 'device:NONCE'): how many
      -- since the last success, and the time (epoch ms) before which the next is refused unread. Rows whose wait is
      -- long over are pruned: a spray of addresses leaves nothing behind for long.
      CREATE TABLE signin_tries (
        service TEXT NOT NULL,
        key TEXT NOT NULL,
        failures INTEGER NOT NULL,
        next_try_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL,
        PRIMARY KEY (service, key)
      );
      CREATE INDEX signin_tries_by_time ON signin_tries (service, updated_at);
`;

const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'the journal: calls, payers and their history, settings',
    sql: `
      -- A call the service may have carried out: 'sent' until its answer (in doubt if none came), then 'done' with
      -- the answer's ids. A bank account's create, and each payer's list of the creates sent for it.
      CREATE TABLE journal_calls (
        service TEXT NOT NULL,
        key TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('sent', 'done')),
        status INTEGER,
        answer TEXT NOT NULL DEFAULT '{}',
        PRIMARY KEY (service, key)
      );
      -- What the journal knows of a payer, one row each: what was registered (digests), the links and statuses last
      -- seen, since when it waits and when it was last asked, and the bank accounts its rows hold.
      CREATE TABLE journal_payers (
        service TEXT NOT NULL,
        key TEXT NOT NULL,
        digest TEXT,
        field_digests TEXT,
        user_id TEXT,
        agreement_url TEXT,
        kyc_url TEXT,
        kyc_status TEXT,
        agreement_status TEXT,
        is_compliant INTEGER,
        agreement_done INTEGER NOT NULL DEFAULT 0,
        account_ids TEXT NOT NULL DEFAULT '[]',
        accounts_known INTEGER NOT NULL DEFAULT 0,
        since TEXT,
        checked_at TEXT,
        PRIMARY KEY (service, key)
      );
      CREATE INDEX journal_payers_by_user ON journal_payers (service, user_id);
      -- Each change of a payer's statuses or accounts as a run saw it (a status not known yet is ''): the payer's page
      -- tells its history from these.
      CREATE TABLE journal_payer_changes (
        service TEXT NOT NULL,
        key TEXT NOT NULL,
        seq INTEGER NOT NULL,
        at TEXT NOT NULL,
        kyc_status TEXT NOT NULL,
        agreement_status TEXT NOT NULL,
        accounts INTEGER NOT NULL,
        PRIMARY KEY (service, key, seq)
      );
      -- What the journal knows of the service itself (its KYC gate), whether the last run closed it, what was imported.
      CREATE TABLE journal_settings (
        service TEXT NOT NULL,
        name TEXT NOT NULL,
        value TEXT NOT NULL,
        PRIMARY KEY (service, name)
      );
    `,
  },
  {
    version: 2,
    name: 'who holds each service and key',
    sql: `
      -- The run that holds a service and key across machines (PostgreSQL's advisory lock is the hold itself): what
      -- a second run is told when it is turned away.
      CREATE TABLE service_holders (
        service TEXT PRIMARY KEY,
        holder TEXT NOT NULL
      );
    `,
  },
  {
    version: 3,
    name: "the service's webhooks received",
    sql: `
      -- Each delivery serve took (named by its body's digest), recorded before it was answered 2xx, and when it was
      -- acted on; a delivery acted on is kept a day, so that the same body sent again is known as the same.
      CREATE TABLE serve_events (
        service TEXT NOT NULL,
        id TEXT NOT NULL,
        received_at TEXT NOT NULL,
        event TEXT NOT NULL,
        done_at TEXT,
        PRIMARY KEY (service, id)
      );
      CREATE INDEX serve_events_pending ON serve_events (service, done_at, received_at);
    `,
  },
  {
    version: 4,
    name: "the web page's sessions and saved mappings",
    sql: `
      -- Who is signed in to the web page: by a hash of the cookie's token (never the token), with the session's CSRF
      -- token, when it ends (epoch ms) and which password it was opened with (a mark of it), so that a restart of
      -- serve signs nobody out, and a changed password everyone.
      CREATE TABLE web_sessions (
        service TEXT NOT NULL,
        token_hash TEXT NOT NULL,
        password_mark TEXT NOT NULL,
        csrf TEXT NOT NULL,
        ends_at BIGINT NOT NULL,
        seen_at BIGINT NOT NULL,
        PRIMARY KEY (service, token_hash)
      );
      -- The column mappings saved on the web page, by a hash of the header row they were made for (the --map JSON).
      CREATE TABLE web_mappings (
        service TEXT NOT NULL,
        header_key TEXT NOT NULL,
        mapping TEXT NOT NULL,
        PRIMARY KEY (service, header_key)
      );
    `,
  },
  {
    version: 5,
    name: 'the rows waiting on their payers',
    sql: `
      -- A file of rows waiting on their payers (KYC, the agreement), as the inbox took it: its name, its format, and
      -- the shape its rows are written back in (each part's sheet, header and CSV dialect, as JSON).
      CREATE TABLE waiting_files (
        service TEXT NOT NULL,
        id TEXT NOT NULL,
        name TEXT NOT NULL,
        format TEXT NOT NULL,
        shape TEXT NOT NULL,
        added_at TEXT NOT NULL,
        PRIMARY KEY (service, id)
      );
      -- Each row of such a file: its part (an .xlsx sheet), its payer (by the journal's key, so an event finds it by
      -- the index), its cells as read (JSON) and the steps it carries. The personal data a row holds lives here only
      -- while the row waits: a row that is run to its end is deleted.
      CREATE TABLE waiting_rows (
        service TEXT NOT NULL,
        file_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        part INTEGER NOT NULL,
        payer_key TEXT NOT NULL,
        client_user_id TEXT NOT NULL,
        original TEXT NOT NULL,
        completed_steps TEXT NOT NULL,
        PRIMARY KEY (service, file_id, seq)
      );
      CREATE INDEX waiting_rows_by_payer ON waiting_rows (service, payer_key, file_id, seq);
    `,
  },
  {
    version: 6,
    name: "the web page's payers",
    sql: `
      -- Where each payer stands as the web page shows it (its line as JSON, its category to filter by), made from the
      -- runs' results.csv and status.csv lines (the latest of each kept, with the file's time) and the journal; in
      -- the order first seen; the id in lower case to search (as JavaScript lowers it: both backends alike). Ids,
      -- links, statuses and the runs' words only: what results.csv holds.
      CREATE TABLE web_payers (
        service TEXT NOT NULL,
        client_user_id TEXT NOT NULL,
        search_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        category TEXT NOT NULL,
        line TEXT NOT NULL,
        seen TEXT NOT NULL,
        PRIMARY KEY (service, client_user_id)
      );
      CREATE INDEX web_payers_in_order ON web_payers (service, seq);
      CREATE INDEX web_payers_by_category ON web_payers (service, category, seq);
      -- The results files taken into web_payers, with the time each had then: a file is read again only when it changed.
      CREATE TABLE web_payer_sources (
        service TEXT NOT NULL,
        path TEXT NOT NULL,
        mtime_ms DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (service, path)
      );
    `,
  },
  {
    version: 7,
    name: 'a lease on each service and key',
    sql: `
      -- On a shared server the hold of a service and key is a lease: the holder renews it every few seconds; another
      -- process takes it once it ran out (its holder stopped, hung or lost the network) or its holder's connection
      -- ended (killed). Each taking counts up the token, which every write of the holder checks: one that comes back
      -- after its lease was taken writes nothing. Times are the server's, in milliseconds.
      ALTER TABLE service_holders ADD COLUMN token BIGINT NOT NULL DEFAULT 0;
      ALTER TABLE service_holders ADD COLUMN lease_until BIGINT NOT NULL DEFAULT 0;
      ALTER TABLE service_holders ADD COLUMN backend INTEGER;
    `,
  },
  {
    version: 8,
    name: "the web page's uploads",
    sql: `
      -- Each file uploaded on the web page: what was found in it and done to it (JSON), the changes a person made
      -- (JSON: what was sent can be traced to what was uploaded), and the file as uploaded while it is needed (to
      -- check, fix and send it; gone once sent as it came), so that any serve over the store can go on with it.
      -- Personal data: an upload goes whole after the retention period.
      CREATE TABLE web_uploads (
        service TEXT NOT NULL,
        id TEXT NOT NULL,
        at TEXT NOT NULL,
        upload TEXT NOT NULL,
        fixes TEXT NOT NULL,
        content BYTEA,
        -- The name it was sent into an inbox as: set by the one serve that sends it.
        sent_as TEXT,
        PRIMARY KEY (service, id)
      );
      CREATE INDEX web_uploads_by_time ON web_uploads (service, at);
    `,
  },
  {
    version: 9,
    name: 'the payers by their bank accounts',
    sql: `
      -- Each bank account id the journal holds, and whose it is: a webhook that names only the account (as the
      -- service's payment_detail.updated does) finds its payer by the index. The payer's clientUserId is kept beside
      -- it, the one id the service can be asked about a payer by; an account known from before it was kept has none.
      CREATE TABLE journal_accounts (
        service TEXT NOT NULL,
        account_id TEXT NOT NULL,
        payer_key TEXT NOT NULL,
        client_user_id TEXT,
        PRIMARY KEY (service, account_id)
      );
      INSERT OR IGNORE INTO journal_accounts (service, account_id, payer_key)
        SELECT p.service, json_extract(a.value, '$[1]'), p.key
        FROM journal_payers p, json_each(CASE WHEN json_valid(p.account_ids) THEN p.account_ids ELSE '[]' END) a
        WHERE CASE WHEN a.type = 'array' THEN json_type(a.value, '$[1]') END = 'text';
      -- A payer with rows waiting is known by them: an event naming only its account then finds its clientUserId.
      UPDATE journal_accounts SET client_user_id = (
        SELECT w.client_user_id FROM waiting_rows w
        WHERE w.service = journal_accounts.service AND w.payer_key = journal_accounts.payer_key LIMIT 1);
    `,
    postgres: `
      CREATE TABLE journal_accounts (
        service TEXT NOT NULL,
        account_id TEXT NOT NULL,
        payer_key TEXT NOT NULL,
        client_user_id TEXT,
        PRIMARY KEY (service, account_id)
      );
      INSERT INTO journal_accounts (service, account_id, payer_key)
        SELECT p.service, a.value->>1, p.key
        FROM journal_payers p,
          json_array_elements(CASE WHEN json_typeof(p.account_ids::json) = 'array' THEN p.account_ids::json ELSE '[]' END) a
        WHERE json_typeof(a.value->1) = 'string'
        ON CONFLICT DO NOTHING;
      -- A payer with rows waiting is known by them: an event naming only its account then finds its clientUserId.
      UPDATE journal_accounts SET client_user_id = (
        SELECT w.client_user_id FROM waiting_rows w
        WHERE w.service = journal_accounts.service AND w.payer_key = journal_accounts.payer_key LIMIT 1);
    `,
  },
  {
    version: 10,
    name: 'the payer directory, links, mails and signatures',
    sql: `
      -- Who each payer is, for the mails that invite them to a page of their own and for the finance team's page: the
      -- names, e-mail and company the latest run (or directory import) read in their row, and when those last
      -- changed. Never SSN, date of birth, bank numbers, phone or address. payer-onboard forget erases an entry.
      CREATE TABLE payer_directory (
        service TEXT NOT NULL,
        client_user_id TEXT NOT NULL,
        first_name TEXT,
        last_name TEXT,
        email TEXT,
        company_name TEXT,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (service, client_user_id)
      );
      -- Each payer's personal links to their page, by the hash of the token (the token itself only in the mail), with
      -- when each was made, ends, was revoked and was first opened.
      CREATE TABLE payer_links (
        service TEXT NOT NULL,
        token_hash TEXT NOT NULL,
        client_user_id TEXT NOT NULL,
        created_at TEXT NOT NULL,
        expires_at TEXT NOT NULL,
        revoked_at TEXT,
        opened_at TEXT,
        PRIMARY KEY (service, token_hash)
      );
      CREATE INDEX payer_links_by_payer ON payer_links (service, client_user_id);
      -- Each mail to a payer, once per step (the invitation, each reminder): 'sending' is written before it goes to
      -- the mail server, so that a crash or a second process never sends it twice unseen; a refusal keeps the
      -- server's reason in a few words, never the address.
      CREATE TABLE payer_mails (
        service TEXT NOT NULL,
        client_user_id TEXT NOT NULL,
        step TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('sending', 'sent', 'refused')),
        reason TEXT,
        at TEXT NOT NULL,
        PRIMARY KEY (service, client_user_id, step)
      );
      -- How each payer's agreement came to be signed, for the record: on their page, by their row (the team
      -- collected it), or by the operator's word for a whole file; the first record stands.
      CREATE TABLE payer_signatures (
        service TEXT NOT NULL,
        client_user_id TEXT NOT NULL,
        how TEXT NOT NULL CHECK (how IN ('page', 'row', 'elsewhere')),
        at TEXT NOT NULL,
        PRIMARY KEY (service, client_user_id)
      );
    `,
  },
  {
    version: 11,
    name: 'mails to send later, and mails that will not be sent',
    sql: `
      -- A mail may be 'due' (to send once its time, 'at', has come: an invitation asked for, a reminder's day) or
      -- 'dropped' (never to be sent: the payer has nothing left to do, or was refused by KYC), besides 'sending',
      -- 'sent' and 'refused'. A CHECK cannot be changed in place in SQLite: the table is made anew, its rows kept.
      CREATE TABLE payer_mails_11 (
        service TEXT NOT NULL,
        client_user_id TEXT NOT NULL,
        step TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('due', 'sending', 'sent', 'refused', 'dropped')),
        reason TEXT,
        at TEXT NOT NULL,
        PRIMARY KEY (service, client_user_id, step)
      );
      INSERT INTO payer_mails_11 (service, client_user_id, step, state, reason, at)
        SELECT service, client_user_id, step, state, reason, at FROM payer_mails;
      DROP TABLE payer_mails;
      ALTER TABLE payer_mails_11 RENAME TO payer_mails;
      -- The mails serve sends next, found without reading every mail ever sent.
      CREATE INDEX payer_mails_by_state ON payer_mails (service, state, at);
    `,
  },
  {
    version: 12,
    name: "the web page's users, sign-in tries and the audit trail",
    sql: `${CONTROLS}
      -- The audit trail: who did what, when, from where; what it was done to (an upload, a user, a run, a payer by
      -- id); its details (JSON, personal values masked). Append-only: the triggers refuse every change and removal.
      CREATE TABLE audit_trail (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        service TEXT NOT NULL,
        at TEXT NOT NULL,
        who TEXT NOT NULL,
        address TEXT NOT NULL,
        action TEXT NOT NULL,
        subject TEXT NOT NULL,
        detail TEXT NOT NULL
      );
      CREATE INDEX audit_trail_by_time ON audit_trail (service, at);
      CREATE TRIGGER audit_trail_no_update BEFORE UPDATE ON audit_trail
        BEGIN SELECT RAISE(ABORT, 'the audit trail is append-only'); END;
      CREATE TRIGGER audit_trail_no_delete BEFORE DELETE ON audit_trail
        BEGIN SELECT RAISE(ABORT, 'the audit trail is append-only'); END;
    `,
    postgres: `${CONTROLS}
      CREATE TABLE audit_trail (
        seq BIGSERIAL PRIMARY KEY,
        service TEXT NOT NULL,
        at TEXT NOT NULL,
        who TEXT NOT NULL,
        address TEXT NOT NULL,
        action TEXT NOT NULL,
        subject TEXT NOT NULL,
        detail TEXT NOT NULL
      );
      CREATE INDEX audit_trail_by_time ON audit_trail (service, at);
      CREATE OR REPLACE FUNCTION audit_trail_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'the audit trail is append-only'; END $$;
      CREATE TRIGGER audit_trail_no_change BEFORE UPDATE OR DELETE OR TRUNCATE ON audit_trail
        FOR EACH STATEMENT EXECUTE FUNCTION audit_trail_append_only();
    `,
  },
];

export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

/**
 * The steps a store at `current` lacks, in order; a store written by a newer version is refused (exit 2), naming
 * both versions: this one would not know what the newer one keeps.
 */
export function stepsAfter(current: number, location: string): Migration[] {
  if (current > SCHEMA_VERSION)
    throw new ConfigError(
      `the store ${location} is at schema version ${current}, written by a newer payer-onboard; this one knows ` +
        `version ${SCHEMA_VERSION}: run the newer version (or restore a backup taken before it ran)`,
    );
  return MIGRATIONS.filter((step) => step.version > current);
}
