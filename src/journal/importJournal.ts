import { createReadStream, existsSync, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { sha256 } from '../plan/identity.js';
import { mergedCall, mergedPayer } from '../store/mergePayer.js';
import { pairsOf } from '../store/SqlJournal.js';
import type { CallRecord, JournalTables, JournalWrite, PayerRecord } from '../store/Store.js';

/** What one import of an old JSONL journal brought into the store. */
export interface Imported {
  path: string;
  calls: number;
  payers: number;
  /** Lines that could not be read (a crash mid-write): skipped, never fatal. */
  corrupt: number;
}

/**
 * Imports a journal that an older version kept as a JSONL file, once (the store notes the file's size and time), and
 * leaves the file as it was. What the store knows already wins where both know a thing, so importing into a store
 * that has lived since, or importing two old journals into one, loses nothing: a call done in either is done, a payer
 * known to both keeps every account id either knew (and is no longer taken to have only those), the first seen time
 * is the earlier one. A payer the store did not know gets its history as the file's lines tell it.
 */
export async function importOldJournal(tables: JournalTables, path: string): Promise<Imported | undefined> {
  if (!existsSync(path)) return undefined;
  const stat = statSync(path);
  const mark = `${stat.size}:${stat.mtimeMs}`;
  const setting = `imported ${path}`;
  if ((await tables.setting(setting)) === mark) return undefined;
  const old = await readOldJournal(path);
  const batch: JournalWrite[] = [];
  let calls = 0;
  for (const [key, line] of old.calls) {
    const record = mergedCall(await tables.call(key), recordOf(line));
    if (record === undefined) continue;
    batch.push({ call: key, record });
    calls++;
  }
  for (const [key, lines] of old.payers) {
    const known = await tables.payer(key);
    if (known === undefined) for (const line of lines) batch.push({ payer: key, record: payerOf(line) });
    else batch.push({ payer: key, record: mergedPayer(known, payerOf(lines[lines.length - 1]!)) });
  }
  if (old.gate !== undefined && (await tables.setting('gate')) === undefined)
    batch.push({ setting: 'gate', value: old.gate });
  // A journal its last run did not close may have lost its last lines: the next run reads what it cannot be sure of.
  if (!old.closedCleanly) batch.push({ setting: 'closed', value: undefined });
  batch.push({ setting, value: mark });
  await tables.write(batch);
  return { path, calls, payers: old.payers.size, corrupt: old.corrupt };
}

/** The old journal's payer record: its fields had one or two letters, since every run wrote one line per payer. */
type PayerLine = Partial<
  Record<'d' | 'f' | 'u' | 'au' | 'ku' | 'ks' | 'as' | 'ic' | 'since' | 'chk' | 'ad' | 'ids' | 'ak', string>
>;

interface OldJournal {
  /** Each call's latest line. */
  calls: Map<string, Line>;
  /** Each payer's lines, oldest first. */
  payers: Map<string, PayerLine[]>;
  gate: string | undefined;
  closedCleanly: boolean;
  corrupt: number;
}

// Keys the old journal wrote for itself, as it made them.
const key = (text: string) => sha256(text).slice(0, 32);
const CLOSED_KEY = key('the journal: closed');
const GATE_KEY = key('the service: KYC gate');

async function readOldJournal(path: string): Promise<OldJournal> {
  const old: OldJournal = { calls: new Map(), payers: new Map(), gate: undefined, closedCleanly: false, corrupt: 0 };
  let last = '';
  // A last line without its newline (a crash mid-write) is still read: parse() decides whether it is whole.
  for await (const text of createInterface({ input: createReadStream(path), crlfDelay: Number.POSITIVE_INFINITY })) {
    if (text === '' || text === '\r') continue;
    const line = parse(text);
    const k = line === undefined ? '' : short(line.k);
    if (line === undefined || !/^[0-9a-f]{32}$/.test(k)) {
      old.corrupt++;
      continue;
    }
    last = k;
    if (k === CLOSED_KEY) continue;
    if (k === GATE_KEY) {
      if (line.s === 'done') old.gate = line.a?.['gate'];
      continue;
    }
    const a = line.s === 'done' ? (line.a as PayerLine | undefined) : undefined;
    // A payer's line has when it was first seen, or (an older journal's) what was registered.
    if (a !== undefined && (a.since !== undefined || a.d !== undefined)) {
      const lines = old.payers.get(k) ?? [];
      lines.push(a);
      old.payers.set(k, lines);
      continue;
    }
    const before = old.calls.get(k);
    // A later line wins, except that a `sent` after a `done` (an old line) does not make the call in doubt again.
    if (before === undefined || line.s === 'done' || before.s !== 'done') old.calls.set(k, line);
  }
  old.closedCleanly = last === CLOSED_KEY && old.corrupt === 0;
  return old;
}

function recordOf(line: Line): CallRecord | undefined {
  if (line.s === 'none') return undefined;
  if (line.s === 'done') return { state: 'done', status: line.c, answer: line.a ?? {} };
  return line.a === undefined ? { state: 'sent' } : { state: 'sent', answer: line.a };
}

function payerOf(a: PayerLine): PayerRecord {
  return {
    ...(a.d ? { digest: a.d } : {}),
    ...(a.f ? { fieldDigests: a.f } : {}),
    ...(a.u ? { userId: a.u } : {}),
    ...(a.au ? { agreementUrl: a.au } : {}),
    ...(a.ku ? { kycUrl: a.ku } : {}),
    ...(a.ks ? { kycStatus: a.ks } : {}),
    ...(a.as ? { agreementStatus: a.as } : {}),
    ...(a.ic ? { isCompliant: a.ic === '1' } : {}),
    agreementDone: a.ad === '1',
    accountIds: a.ids === undefined ? [] : pairsOf(a.ids),
    accountsKnown: a.ak === '1',
    ...(a.since ? { since: a.since } : {}),
    ...(a.chk ? { checkedAt: a.chk } : {}),
  };
}

/**
 * A journal line. `k` is a hash naming the call (or the payer). `none`: a call the service certainly did not
 * carry out (a field error, a 429 given up on), so a re-run creates without asking first.
 */
type Line =
  /** `a`: what a later run needs to settle the call if its answer never comes (a bank account: the ids before it). */
  | { k: string; s: 'sent'; a?: Record<string, string> }
  | { k: string; s: 'none' }
  | { k: string; s: 'done'; c: number; a?: Record<string, string> };

/** The key as the old journal indexed it: 128 bits of the SHA-256 (older lines had all of it, or a `po-` before it). */
function short(key: string): string {
  if (key.length === 32 && !key.startsWith('po-')) return key;
  return (key.startsWith('po-') ? key.slice(3) : key).slice(0, 32);
}

function parse(text: string): Line | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (value === null || typeof value !== 'object') return undefined;
  const line = value as Partial<{ k: unknown; s: unknown; c: unknown; a: unknown }>;
  if (typeof line.k !== 'string' || line.k === '') return undefined;
  const answerOk =
    line.a === undefined ||
    (line.a !== null && typeof line.a === 'object' && Object.values(line.a).every((v) => typeof v === 'string'));
  if (line.s === 'sent')
    return line.a !== undefined && answerOk
      ? { k: line.k, s: 'sent', a: line.a as Record<string, string> }
      : { k: line.k, s: 'sent' };
  if (line.s === 'none') return { k: line.k, s: 'none' };
  if (line.s !== 'done' || typeof line.c !== 'number') return undefined;
  if (!answerOk) return undefined;
  return { k: line.k, s: 'done', c: line.c, ...(line.a ? { a: line.a as Record<string, string> } : {}) };
}
