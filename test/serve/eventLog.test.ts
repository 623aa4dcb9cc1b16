import { readFileSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventLog } from '../../src/serve/EventLog.js';
import { openStore } from '../../src/store/openStore.js';
import type { Store } from '../../src/store/Store.js';
import { tempDir } from '../helpers/tempDir.js';
import { type TestStore, testStore } from '../helpers/testStore.js';

let tmp: ReturnType<typeof tempDir>;
let backend: TestStore;
const opened: Store[] = [];
beforeEach(async () => {
  tmp = tempDir();
  backend = await testStore(tmp.path('state'));
});
afterEach(async () => {
  await settled();
  await backend.close();
  tmp.remove();
});

const SERVICE = 'api.example.com-0123456789ab';
const approved = { event: 'compliance.updated', clientUserId: 'p-1', kycStatus: 'approved' };
const id = (text: string) => EventLog.deliveryId(Buffer.from(text));

/** The event log of a store opened as serve opens it (each call a process of its own, as after a restart). */
async function open(now = Date.now(), oldLog?: string): Promise<EventLog> {
  const store = await openStore({ stateDir: tmp.path('state'), databaseUrl: backend.env.PAYER_ONBOARD_DATABASE_URL });
  opened.push(store);
  const log = await EventLog.open(store.events(SERVICE), store.journal(SERVICE), oldLog, now);
  logs.push(log);
  return log;
}

const logs: EventLog[] = [];
/** Marks of done are written as the worker goes on: the processes end once they are (serve's close waits for them). */
async function settled(): Promise<void> {
  for (const log of logs.splice(0)) await log.settled();
  for (const store of opened.splice(0)) await store.close();
}

describe('the event log', () => {
  it('keeps an event recorded and not done across a restart, and forgets it once done', async () => {
    const log = await open();
    expect(await log.record(approved, id('a'))).toBe('recorded');
    const again = await open();
    expect(again.pending().map((e) => [e.id, e.clientUserId, e.kycStatus])).toEqual([[id('a'), 'p-1', 'approved']]);
    again.done([id('a')]);
    expect(again.pending()).toEqual([]);
    await settled();
    expect((await open()).pending()).toEqual([]);
  });

  it('the same body within a day is the same delivery, after a restart too; a day later it is a new one', async () => {
    const now = new Date('2026-11-28T10:00:00Z');
    const log = await open(now.getTime());
    expect(await log.record(approved, id('a'), now)).toBe('recorded');
    expect(await log.record(approved, id('a'), new Date('2026-11-28T12:00:00Z'))).toBe('duplicate');
    expect(await log.record(approved, id('b'), now)).toBe('recorded');
    log.done([id('a'), id('b')], now);
    await settled();
    const reopened = await open(Date.parse('2026-11-28T20:00:00Z'));
    expect(await reopened.record(approved, id('a'), new Date('2026-11-28T20:00:00Z'))).toBe('duplicate');
    const nextDay = await open(Date.parse('2026-11-29T11:00:00Z'));
    expect(await nextDay.record(approved, id('a'), new Date('2026-11-29T11:00:00Z'))).toBe('recorded');
    expect(nextDay.pending().map((e) => e.id)).toEqual([id('a')]);
  });

  it("imports an older version's events.jsonl once: pending stays pending, a recent delivery is still known", async () => {
    const old = '2026-11-26T10:00:00.000Z';
    const recent = '2026-11-28T09:00:00.000Z';
    const lines = [
      { ev: { ...approved, id: id('pending'), at: recent } },
      { ev: { ...approved, clientUserId: 'p-2', id: id('recent'), at: recent } },
      { done: [id('recent')], at: recent },
      { ev: { ...approved, clientUserId: 'p-3', id: id('old'), at: old } },
      { done: [id('old')], at: old },
    ].map((line) => JSON.stringify(line));
    // A crash mid-write left a torn last line, never answered 2xx: skipped.
    const path = tmp.write('events.jsonl', `${lines.join('\n')}\n{"ev":{"id":"half`);
    const text = readFileSync(path, 'utf8');
    const now = Date.parse('2026-11-28T10:00:00Z');
    const log = await open(now, path);
    expect(log.pending().map((e) => [e.id, e.at, e.clientUserId])).toEqual([[id('pending'), recent, 'p-1']]);
    expect(await log.record(approved, id('recent'), new Date(now))).toBe('duplicate');
    expect(await log.record(approved, id('old'), new Date(now))).toBe('recorded');
    expect(readFileSync(path, 'utf8')).toBe(text);
    log.done([id('pending'), id('old')], new Date(now));
    await settled();
    // Imported once: what was done since is not brought back by a second open.
    expect((await open(now, path)).pending()).toEqual([]);
    writeFileSync(path, text);
  });

  it('forgets a delivery acted on a day after it came, keeping what is pending however old', async () => {
    const start = Date.parse('2026-11-01T00:00:00Z');
    const log = await open(start);
    for (let i = 0; i < 60; i++) {
      const at = new Date(start + i * 60 * 60_000);
      await log.record({ ...approved, clientUserId: `p-${i}` }, id(`e-${i}`), at);
      if (i !== 7) log.done([id(`e-${i}`)], at);
    }
    await settled();
    const end = new Date(start + 60 * 60 * 60_000);
    const reopened = await open(end.getTime());
    expect(reopened.pending().map((e) => e.id)).toEqual([id('e-7')]);
    // A delivery of the last day is still known as such; one of the first day is not.
    expect(await reopened.record(approved, id('e-59'), end)).toBe('duplicate');
    expect(await reopened.record(approved, id('e-10'), end)).toBe('recorded');
  });
});
