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
