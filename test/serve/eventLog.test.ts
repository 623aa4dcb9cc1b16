import { appendFileSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventLog } from '../../src/serve/EventLog.js';
import { tempDir } from '../helpers/tempDir.js';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.remove());

const approved = { event: 'compliance.updated', clientUserId: 'p-1', kycStatus: 'approved' };
const id = (text: string) => EventLog.deliveryId(Buffer.from(text));

describe('EventLog', () => {
  it('keeps an event recorded and not done across a reopen, and forgets it once done', () => {
    const path = tmp.path('state/events.jsonl');
    const log = EventLog.open(path);
    expect(log.record(approved, id('a'))).toBe('recorded');
    log.close();
    expect(statSync(path).mode & 0o777).toBe(0o600);

    const again = EventLog.open(path);
    expect(again.pending().map((e) => [e.id, e.clientUserId, e.kycStatus])).toEqual([[id('a'), 'p-1', 'approved']]);
    again.done([id('a')]);
    again.close();
    expect(EventLog.open(path).pending()).toEqual([]);
  });

  it('the same body within a day is the same delivery, after a reopen too; a day later it is a new one', () => {
    const path = tmp.path('events.jsonl');
    const now = new Date('2026-11-28T10:00:00Z');
    const log = EventLog.open(path, now.getTime());
    expect(log.record(approved, id('a'), now)).toBe('recorded');
    expect(log.record(approved, id('a'), new Date('2026-11-28T12:00:00Z'))).toBe('duplicate');
    expect(log.record(approved, id('b'), now)).toBe('recorded');
    log.done([id('a'), id('b')]);
    log.close();
    const reopened = EventLog.open(path, Date.parse('2026-11-28T20:00:00Z'));
    expect(reopened.record(approved, id('a'), new Date('2026-11-28T20:00:00Z'))).toBe('duplicate');
    reopened.close();
    const nextDay = EventLog.open(path, Date.parse('2026-11-29T11:00:00Z'));
    expect(nextDay.record(approved, id('a'), new Date('2026-11-29T11:00:00Z'))).toBe('recorded');
    nextDay.close();
  });

  it('a torn last line (a crash mid-write, never answered) is skipped; the lines before it stand', () => {
    const path = tmp.path('events.jsonl');
    const log = EventLog.open(path);
    log.record(approved, id('a'));
    log.close();
    appendFileSync(path, '{"ev":{"id":"half');
    const reopened = EventLog.open(path);
    expect(reopened.pending().map((e) => e.id)).toEqual([id('a')]);
    // The next line starts on its own line, not glued to the torn one.
    reopened.record(approved, id('b'));
    reopened.close();
    expect(
      EventLog.open(path)
        .pending()
        .map((e) => e.id),
    ).toEqual([id('a'), id('b')]);
  });

  it('a large log is written again at open with only the pending events and the deliveries of the last day', () => {
    const path = tmp.path('events.jsonl');
    const old = new Date('2026-11-01T00:00:00Z').toISOString();
    const lines: string[] = [];
    for (let i = 0; i < 6000; i++) {
      const ev = { ...approved, clientUserId: `p-${i}`, id: id(`old-${i}`), at: old };
      lines.push(JSON.stringify({ ev }), JSON.stringify({ done: [ev.id], at: old }));
    }
    lines.push(JSON.stringify({ ev: { ...approved, id: id('pending'), at: old } }));
    writeFileSync(path, `${lines.join('\n')}\n`);
    expect(statSync(path).size).toBeGreaterThan(1 << 20);
    const log = EventLog.open(path, Date.parse('2026-11-28T00:00:00Z'));
    log.close();
    expect(statSync(path).size).toBeLessThan(1000);
    expect(
      EventLog.open(path)
        .pending()
        .map((e) => e.id),
    ).toEqual([id('pending')]);
    expect(readFileSync(path, 'utf8')).not.toContain('p-5999');
  });
});

describe('EventLog while it runs', () => {
  let tmp: ReturnType<typeof tempDir>;
  beforeEach(() => {
    tmp = tempDir();
  });
  afterEach(() => tmp.remove());

  it('is written whole again once it has grown, keeping what is pending and what came in the last day', () => {
    const path = tmp.path('events.jsonl');
    const start = Date.parse('2026-11-01T00:00:00Z');
    const log = EventLog.open(path, start, 20_000);
    for (let i = 0; i < 800; i++) {
      const at = new Date(start + i * 3 * 60_000);
      log.record({ ...approved, clientUserId: `p-${i}` }, id(`e-${i}`), at);
      if (i !== 7) log.done([id(`e-${i}`)], at);
    }
    log.close();
    // 800 events of 40 hours, 170,000 bytes as written: the last day's, and what was appended since the last rewrite.
    expect(statSync(path).size).toBeLessThan(100_000);
    const end = new Date(start + 800 * 3 * 60_000);
    const reopened = EventLog.open(path, end.getTime(), 20_000);
    expect(reopened.pending().map((e) => e.id)).toEqual([id('e-7')]);
    // A delivery of the last day is still known as such; one of the first day is not.
    expect(reopened.record(approved, id('e-799'), end)).toBe('duplicate');
    expect(reopened.record(approved, id('e-100'), end)).toBe('recorded');
    reopened.close();
  });
});
