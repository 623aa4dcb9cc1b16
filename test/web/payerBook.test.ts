import { mkdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { payerKeyOf } from '../../src/journal/RowJournal.js';
import { openStore } from '../../src/store/openStore.js';
import type { PayerRecord, Store } from '../../src/store/Store.js';
import { PayerBook } from '../../src/web/payerBook.js';
import { tempDir } from '../helpers/tempDir.js';

// The Payers page's payers: taken into the store from the runs' results.csv and status.csv, each file once.

let tmp: ReturnType<typeof tempDir>;
let store: Store;
let book: PayerBook;
const SERVICE = 'api.example.com-0123456789ab';
beforeEach(async () => {
  tmp = tempDir();
  store = await openStore({ stateDir: tmp.dir });
  book = new PayerBook(tmp.path('results'), { stateDir: tmp.dir, service: SERVICE, jsonl: [], open: store });
});
afterEach(async () => {
  await store.close();
  tmp.remove();
});

const record = (over: Partial<PayerRecord>): PayerRecord => ({
  agreementDone: false,
  accountIds: [],
  accountsKnown: false,
  ...over,
});

/** A results folder's file, its time set (seconds since the epoch): later files say newer things. */
function file(folder: string, name: string, lines: string[], at: number): string {
  mkdirSync(tmp.path(join('results', folder)), { recursive: true });
  const path = tmp.path(join('results', folder, name));
  writeFileSync(path, `${lines.join('\n')}\n`);
  utimesSync(path, at, at);
  return path;
}

const RESULTS = 'clientUserId,outcome,error,userId,kycStatus,agreementStatus,paymentDetailId,kycUrl,agreementUrl';
const categories = async () =>
  Object.fromEntries((await book.page({ page: 1 }, 100)).lines.map((l) => [l.clientUserId, l.category]));

describe('the payers of the web page, from the results files', () => {
  it('a run, then a later check: each payer where the latest file and the journal put it; a skipped row says nothing', async () => {
    await store.journal(SERVICE).write([
      {
        payer: payerKeyOf('a'),
        record: record({
          userId: 'u-a',
          kycStatus: 'approved',
          agreementStatus: 'completed',
          accountIds: [['k', 'pd-1']],
        }),
      },
      { payer: payerKeyOf('b'), record: record({ userId: 'u-b', kycStatus: 'pending', kycUrl: 'https://kyc/b' }) },
    ]);
    file(
      'payers.csv-1',
      'results.csv',
      [
        RESULTS,
        'a,ok,,u-a,approved,completed,pd-1,,',
        'b,waiting,,u-b,pending,,,https://kyc/b,',
        'c,invalid,email: not an e-mail,,,,,,',
        'd,skipped,,,,,,,',
      ],
      1000,
    );
    expect(await categories()).toEqual({ a: 'bank-pending', b: 'kyc-pending', c: 'fix-rows' });
    expect((await book.page({ page: 1 }, 100)).lines[1]).toMatchObject({
      kycUrl: 'https://kyc/b',
      bank: 'waits for KYC and the agreement',
    });

    file(
      'status-2',
      'status.csv',
      ['clientUserId,payable,bankAccounts,checkedAt,error', 'a,true,approved=1,2026-12-02T10:00:00Z,'],
      2000,
    );
    book.changed();
    const page = await book.page({ page: 1 }, 100);
    expect(Object.fromEntries(page.lines.map((l) => [l.clientUserId, l.category]))).toEqual({
      a: 'payable',
      b: 'kyc-pending',
      c: 'fix-rows',
    });
    expect(Object.fromEntries(page.counts)).toEqual({ payable: 1, 'kyc-pending': 1, 'fix-rows': 1 });
    expect(await book.line('a')).toMatchObject({
      category: 'payable',
      bank: 'approved',
      checkedAt: '2026-12-02T10:00:00Z',
      userId: 'u-a',
    });
    expect(await book.line('nobody')).toBeUndefined();
  });

  it('a file is read once: unchanged since, it is not read again; changed, it is', async () => {
    const path = file('payers.csv-1', 'results.csv', [RESULTS, 'x,invalid,bad,,,,,,'], 1000);
    expect(await categories()).toEqual({ x: 'fix-rows' });
    // The same time, other content: not read (a results file is never rewritten in place by the tool).
    writeFileSync(path, `${RESULTS}\ny,invalid,bad,,,,,,\n`);
    utimesSync(path, 1000, 1000);
    book.changed();
    expect(await categories()).toEqual({ x: 'fix-rows' });
    utimesSync(path, 3000, 3000);
    expect(statSync(path).mtimeMs).toBe(3_000_000);
    book.changed();
    expect(await categories()).toEqual({ x: 'fix-rows', y: 'fix-rows' });
  });
});

describe("the payers' mails on the page", () => {
  it('when each was invited and reminded, its link opened, its agreement signed on its page, a refusal, what is next', async () => {
    file(
      'payers.csv-1',
      'results.csv',
      [RESULTS, 'a,waiting,,u-a,pending,,,,', 'b,waiting,,u-b,pending,,,,', 'c,waiting,,,,,,,'],
      1000,
    );
    const directory = store.directory(SERVICE);
    const mail = (id: string, step: string, state: 'sent' | 'due' | 'refused', at: string, reason?: string) =>
      directory.putMail({ clientUserId: id, step, state, at, ...(reason ? { reason } : {}) });
    await mail('a', 'invitation', 'sent', '2026-12-01T10:00:00.000Z');
    await mail('a', 'reminder-1', 'sent', '2026-12-04T10:00:00.000Z');
    await mail('a', 'reminder-2', 'due', '2026-12-08T10:00:00.000Z');
    await directory.addLink({ tokenHash: 'h1', clientUserId: 'a', createdAt: 'x', expiresAt: 'y' });
    await directory.openedLink('h1', '2026-12-02T08:30:00.000Z');
    await directory.sign({ clientUserId: 'a', how: 'page', at: '2026-12-02T08:35:00.000Z' });
    await mail('b', 'invitation', 'refused', '2026-12-01T10:00:00.000Z', '550 no such user');
    const page = await book.page({ page: 1 }, 100);
    expect(page.lines.map((line) => [line.clientUserId, line.mail])).toEqual([
      [
        'a',
        {
          invitedAt: '2026-12-01T10:00:00.000Z',
          remindedAt: '2026-12-04T10:00:00.000Z',
          openedAt: '2026-12-02T08:30:00.000Z',
          signedAt: '2026-12-02T08:35:00.000Z',
          next: 'reminder-2 due 2026-12-08T10:00:00.000Z',
        },
      ],
      ['b', { refused: '550 no such user' }],
      ['c', undefined],
    ]);
    const { payersFragment } = await import('../../src/web/payerPages.js');
    const { toText } = await import('../../src/core/html.js');
    const text = toText(payersFragment(page, { page: 1 }, 'csrf'));
    // Each time a <time> the page's script writes in the reader's zone; without it, UTC, said so.
    const at = (iso: string) => `<time datetime="${iso}">${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC</time>`;
    expect(text).toContain(
      `invited ${at('2026-12-01T10:00:00.000Z')}; reminded ${at('2026-12-04T10:00:00.000Z')}; link opened ${at('2026-12-02T08:30:00.000Z')}; agreement signed on their page ${at('2026-12-02T08:35:00.000Z')}; reminder-2 due ${at('2026-12-08T10:00:00.000Z')}`,
    );
    expect(text).toContain(
      'e-mail refused (550 no such user): check their e-mail address in the file and run it again',
    );
    expect((await book.line('a'))?.mail?.signedAt).toBe('2026-12-02T08:35:00.000Z');
  });
  it('a bank-added mail is a notice: neither a reminder nor the next step of the invitation', async () => {
    file('payers.csv-1', 'results.csv', [RESULTS, 'a,waiting,,u-a,pending,,,,'], 1000);
    const directory = store.directory(SERVICE);
    const mail = (step: string, state: 'sent' | 'due', at: string) =>
      directory.putMail({ clientUserId: 'a', step, state, at });
    await mail('invitation', 'sent', '2026-12-01T10:00:00.000Z');
    await mail('bank-added-2', 'sent', '2026-12-03T10:00:00.000Z');
    await mail('bank-added-3', 'due', '2026-12-05T10:00:00.000Z');
    await mail('reminder-1', 'due', '2026-12-08T10:00:00.000Z');
    const page = await book.page({ page: 1 }, 100);
    expect(page.lines[0]?.mail).toEqual({
      invitedAt: '2026-12-01T10:00:00.000Z',
      accountNoticeAt: '2026-12-03T10:00:00.000Z',
      next: 'reminder-1 due 2026-12-08T10:00:00.000Z',
    });
    const { payersFragment } = await import('../../src/web/payerPages.js');
    const { toText } = await import('../../src/core/html.js');
    const text = toText(payersFragment(page, { page: 1 }, 'csrf'));
    expect(text).toContain('told of a new bank account <time datetime="2026-12-03T10:00:00.000Z">');
    expect(text).not.toContain('reminded');
    expect(text).not.toContain('bank-added');
  });
});

describe('where each payer stands, said once', () => {
  it('a KYC-rejected payer is to contact even without the journal; the bank account agrees with KYC and the agreement', async () => {
    await store.journal(SERVICE).write([
      // KYC under way, the agreement already completed (the team collected it): the account waits for KYC only.
      {
        payer: payerKeyOf('k'),
        record: record({
          userId: 'u-k',
          kycStatus: 'pending',
          agreementStatus: 'completed',
          agreementDone: true,
          kycUrl: 'https://kyc/k',
        }),
      },
      {
        payer: payerKeyOf('s'),
        record: record({
          userId: 'u-s',
          kycStatus: 'approved',
          agreementStatus: 'completed',
          agreementDone: true,
          accountIds: [['a', 'pd-s']],
        }),
      },
    ]);
    file(
      'payers.csv-1',
      'results.csv',
      [
        RESULTS,
        'k,waiting,kyc: waiting for KYC approval (kycStatus pending),u-k,pending,completed,,https://kyc/k,',
        's,ok,,u-s,approved,completed,pd-s,,',
        // Not in this store's journal (another state dir ran it): its row says the service refused the check.
        'r,failed,kyc: KYC rejected: nothing in this row is wrong; the payer must be contacted,u-r,rejected,,,,',
      ],
      1000,
    );
    const lines = Object.fromEntries((await book.page({ page: 1 }, 100)).lines.map((l) => [l.clientUserId, l]));
    expect(lines.k).toMatchObject({ category: 'kyc-pending', bank: 'waits for KYC' });
    expect(lines.s).toMatchObject({ category: 'bank-pending', bank: 'stored, being checked' });
    expect(lines.s?.read).toBeUndefined();
    expect(lines.r).toMatchObject({ category: 'kyc-rejected', bank: 'not sent: KYC rejected' });
    // The payer stored and never read since is the one the page's first read asks about.
    expect(await book.unread()).toEqual(['s']);

    const { standing, payersFragment } = await import('../../src/web/payerPages.js');
    const { toText } = await import('../../src/core/html.js');
    expect(standing(lines.k!)).toEqual({
      where: 'Registered; waiting for them to pass the identity check (KYC pending); the agreement is signed.',
      next: 'Send them their KYC link.',
    });
    expect(standing(lines.r!)).toEqual({
      where: 'The service rejected their identity check (KYC rejected); nothing in their row is wrong.',
      next: 'Contact them.',
    });
    // A KYC link only where KYC waits on the payer; no agreement link anywhere (the payer signs on their own page).
    const text = toText(payersFragment(await book.page({ page: 1 }, 100), { page: 1 }, 'csrf'));
    expect([...text.matchAll(/data-copy="([^"]+)"/g)].map((m) => m[1])).toEqual(['https://kyc/k']);

    // A read since: the service's word (payable), and nothing left for the first read.
    file(
      'status-2',
      'status.csv',
      ['clientUserId,payable,bankAccounts,checkedAt,error', 's,true,approved=1,2026-12-02T10:00:00Z,'],
      2000,
    );
    book.changed();
    expect(await book.line('s')).toMatchObject({ category: 'payable', bank: 'approved', read: true });
    expect(await book.unread()).toEqual([]);
  });

  it('names each payer as the directory has them now, the id alone without an entry; a file of an older serve is taken in again', async () => {
    const path = file(
      'payers.csv-1',
      'results.csv',
      [RESULTS, 'p,waiting,,u-p,pending,,,https://kyc/p,', 'q,waiting,,u-q,pending,,,,'],
      1000,
    );
    await store.directory(SERVICE).putEntries([
      {
        clientUserId: 'p',
        firstName: 'Ada',
        lastName: 'Lovelace',
        email: 'ada@example.com',
        companyName: 'Engines Ltd',
        updatedAt: 'x',
      },
    ]);
    expect((await book.page({ page: 1 }, 100)).lines.map((l) => [l.clientUserId, l.who])).toEqual([
      ['p', { name: 'Ada Lovelace (Engines Ltd)', email: 'ada@example.com' }],
      ['q', undefined],
    ]);
    await store.directory(SERVICE).forget('p');
    expect((await book.line('p'))?.who).toBeUndefined();
    // What an older serve kept of this file is under the bare path: the file is read again, its lines made anew.
    const tables = store.payers(SERVICE);
    expect([...(await tables.sources()).keys()]).toEqual([`v2:${path}`]);
  });
});
