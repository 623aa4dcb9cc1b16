import type { CallRecord, PayerRecord } from './Store.js';

// Two memories of one payer (an old JSONL journal imported, or a SQLite store copied into PostgreSQL) made one: what
// either knew is kept, and what `known` says wins where both say something.

/** A payer both know: `known`'s record, with what only `other` knew, and every account id of either. */
export function mergedPayer(known: PayerRecord, other: PayerRecord): PayerRecord {
  const accountIds = [...known.accountIds];
  for (const pair of other.accountIds) if (!accountIds.some(([k]) => k === pair[0])) accountIds.push(pair);
  const since = [known.since, other.since].filter((t) => t !== undefined).sort()[0];
  return {
    ...other,
    ...known,
    agreementDone: known.agreementDone || other.agreementDone,
    accountIds,
    // Two memories of one payer: neither can say it knows every account the service stores.
    accountsKnown: false,
    ...(since === undefined ? {} : { since }),
  };
}

/**
 * Whether `other` knows something of the payer that `known` does not: an account, the agreement done, a field, an
 * earlier first sight. A copy merges only then, so copying again changes nothing, and a payer that a run on the
 * target has moved on since keeps what that run learned (every account known among it).
 */
export function addsTo(known: PayerRecord, other: PayerRecord): boolean {
  if (other.accountIds.some(([key]) => !known.accountIds.some(([k]) => k === key))) return true;
  if (other.agreementDone && !known.agreementDone) return true;
  if (other.since !== undefined && (known.since === undefined || other.since < known.since)) return true;
  const fields = Object.keys(other) as Array<keyof PayerRecord>;
  return fields.some((field) => other[field] !== undefined && known[field] === undefined);
}

/**
 * What the store keeps of a call both know, when the other memory (an old journal, a store copied in) adds to it
 * (none otherwise): a payer's list of the
 * creates sent for it holds every create either sent; of anything else, the store's record stands (a create it holds
 * in doubt is settled by a read, never by an older answer).
 */
export function mergedCall(known: CallRecord | undefined, old: CallRecord | undefined): CallRecord | undefined {
  if (old === undefined) return undefined;
  if (known === undefined) return old;
  const keys = (record: CallRecord) => {
    if (record.state !== 'done' || record.answer['keys'] === undefined) return undefined;
    try {
      const list: unknown = JSON.parse(record.answer['keys']);
      return Array.isArray(list) ? list.filter((k): k is string => typeof k === 'string') : undefined;
    } catch {
      return undefined;
    }
  };
  const mine = keys(known);
  const theirs = keys(old);
  if (mine === undefined || theirs === undefined || theirs.every((k) => mine.includes(k))) return undefined;
  return {
    ...known,
    answer: { ...known.answer, keys: JSON.stringify([...mine, ...theirs.filter((k) => !mine.includes(k))]) },
  } as CallRecord;
}
