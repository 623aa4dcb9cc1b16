import type { JournalPlace } from '../journal/openJournal.js';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { type JournaledPayer, journaledPayers } from '../journal/RowJournal.js';
import { agreementCompleted, kycDone, kycRejected } from '../plan/verdict.js';
import type { Category } from '../status/payerStatus.js';

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
}

/** The latest line of a payer in the inbox's results.csv files, and in its status.csv files, each with its time. */
interface Seen {
  row?: { at: number; cells: Record<string, string> };
  status?: { at: number; cells: Record<string, string> };
}

/**
 * The payers serve has run, from what it keeps: each run's results.csv (ids, links, the row's outcome), the status.csv
 * of its checks (the service's word on the bank accounts: only a read says a payer is payable) and the journal (the
 * statuses last seen). Nothing is asked of the service here. Files are read again only when they change.
 */
export class PayerBook {
  private readonly files = new Map<string, { mtimeMs: number; records: Array<Record<string, string>> }>();
  /** The lines as last read, shared by every request until something changes (a run, a batch, a check ends). */
  private cached: Promise<PayerLine[]> | undefined;

  constructor(
    private readonly resultsDir: string,
    private readonly journal: JournalPlace,
  ) {}

  lines(): Promise<PayerLine[]> {
    this.cached ??= this.readAll().catch((error: unknown) => {
      this.cached = undefined;
      throw error;
    });
    return this.cached;
  }

  /** What serve did since makes the lines read again at the next request. */
  changed(): void {
    this.cached = undefined;
  }

  private async readAll(): Promise<PayerLine[]> {
    const seen = this.scan();
    const journal = await journaledPayers(this.journal, seen.keys());
    return [...seen.entries()].map(([id, s]) => payerLine(id, s, journal(id)));
  }

  /** Every results.csv and status.csv under results/, latest line per payer (by the file's time). */
  private scan(): Map<string, Seen> {
    const seen = new Map<string, Seen>();
    if (!existsSync(this.resultsDir)) return seen;
    for (const folder of readdirSync(this.resultsDir)) {
      for (const [file, kind] of [
        ['results.csv', 'row'],
        ['status.csv', 'status'],
      ] as const) {
        const path = join(this.resultsDir, folder, file);
        const read = this.read(path);
        if (read === undefined) continue;
        for (const cells of read.records) {
          const id = cells.clientUserId;
          // A batch of events leaves the file's other rows `skipped`: they say nothing new of their payer.
          if (!id || (kind === 'row' && cells.outcome === 'skipped')) continue;
          const entry = seen.get(id) ?? {};
          if ((entry[kind]?.at ?? -1) <= read.mtimeMs) entry[kind] = { at: read.mtimeMs, cells };
          seen.set(id, entry);
        }
      }
    }
    return seen;
  }

  private read(path: string): { mtimeMs: number; records: Array<Record<string, string>> } | undefined {
    let mtimeMs: number;
    try {
      mtimeMs = statSync(path).mtimeMs;
    } catch {
      return undefined;
    }
    const cached = this.files.get(path);
    if (cached?.mtimeMs === mtimeMs) return cached;
    const records = parse(readFileSync(path), { columns: true, relax_column_count: true }) as Array<
      Record<string, string>
    >;
    const read = { mtimeMs, records };
    this.files.set(path, read);
    return read;
  }
}

/**
 * Where a payer stands, in the status command's categories: a read of its accounts (status.csv) says payable or
 * failed; otherwise the journal's statuses say what it waits for; a payer the journal never registered has rows to fix.
 */
function payerLine(clientUserId: string, seen: Seen, journal: JournaledPayer | undefined): PayerLine {
  const row = seen.row?.cells ?? {};
  const status = seen.status?.cells;
  const readLater = status !== undefined && (seen.row === undefined || seen.status!.at >= seen.row.at);
  const verdict = journal ?? { kycStatus: row.kycStatus, agreementStatus: row.agreementStatus };
  const accounts = journal?.accounts ?? (row.paymentDetailId ? 1 : 0);
  const failedRead = /failed=[1-9]/.test(status?.bankAccounts ?? '');
  let category: Category;
  if (readLater && status?.payable === 'true') category = 'payable';
  else if (journal === undefined && (row.outcome === 'invalid' || row.outcome === 'failed')) category = 'fix-rows';
  else if (journal === undefined) category = 'not-registered';
  else if (kycRejected(verdict)) category = 'kyc-rejected';
  else if (!kycDone(verdict)) category = 'kyc-pending';
  else if (!agreementCompleted(verdict)) category = 'agreement-pending';
  else if (readLater && failedRead) category = 'bank-failed';
  else category = 'bank-pending';
  const bank =
    category === 'payable'
      ? 'approved'
      : failedRead && readLater
        ? 'failed its check'
        : accounts > 0
          ? 'stored, being checked'
          : 'waits for KYC and the agreement';
  return {
    clientUserId,
    userId: journal?.userId ?? row.userId ?? '',
    category,
    kycStatus: verdict.kycStatus ?? '',
    agreementStatus: verdict.agreementStatus ?? '',
    bank,
    kycUrl: journal?.kycUrl ?? row.kycUrl ?? '',
    agreementUrl: journal?.agreementUrl ?? row.agreementUrl ?? '',
    since: journal?.since ?? '',
    checkedAt: (readLater ? status?.checkedAt : undefined) ?? journal?.checkedAt ?? '',
    error: (readLater ? status?.error : row.error) ?? '',
  };
}
