import { chmodSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { simpleParser } from 'mailparser';
import { afterEach, describe, expect, it } from 'vitest';
import { journalName } from '../../src/journal/stateDir.js';
import { openStore } from '../../src/store/openStore.js';
import type { ControlTables, Store } from '../../src/store/Store.js';
import { API_KEY } from '../helpers/runHarness.js';
import { serveHarness } from '../helpers/serveHarness.js';
import { tempDir } from '../helpers/tempDir.js';
import { post, signInAs, type WebSession, welcome } from '../helpers/webSession.js';
import { closedPort } from '../mail/smtpServer.js';

// The admin's pages over HTTP, against serve and its store: the shared password adds the first admin (her link on
// serve's public address, and mailed), users added and changed; the audit page's filters and pages, the CSV of what
// they keep with a spreadsheet's formula guarded, and no route of the page that changes a line of the trail.

const SHARED = 'correct horse battery';
const PUBLIC = 'https://payers.example.com';
const FORMULA = "=cmd|' /C calc'!A0";

let h: Awaited<ReturnType<typeof serveHarness>> | undefined;
let store: Store | undefined;
afterEach(async () => {
  await store?.close();
  store = undefined;
  await h?.close();
  h = undefined;
});

/** serve's controls, read beside it (SQLite in WAL lets both). */
async function controls(): Promise<ControlTables> {
  store ??= await openStore({ stateDir: h!.tmp.path('state') });
  return store.controls(journalName(h!.sandbox.url, API_KEY));
}

const get = (path: string, session: WebSession) =>
  fetch(`${h!.serve.url}${path}`, { headers: { cookie: session.cookie }, redirect: 'manual' });

/** The one-time link a users page shows, led to serve itself (the public address is a proxy's the test has not). */
function linkOn(page: string): string {
  const url = /<span class="link-text" id="link-text">([^<]+)<\/span>/.exec(page)![1]!;
  return `${h!.serve.url}${new URL(url).pathname}`;
}

/** The rows of the audit page's table: who, action, subject, details (each cell's text). */
function auditRows(page: string): string[][] {
  const body = /<tbody>([\s\S]*?)<\/tbody>/.exec(page)![1]!;
  return [...body.matchAll(/<tr data-seq[\s\S]*?<\/tr>/g)].map((row) =>
    [...row[0].matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)]
      .map((cell) =>
        cell[1]!
          .replace(/<[^>]+>/g, '')
          .replace(/&#39;/g, "'")
          .replace(/&amp;/g, '&'),
      )
      .filter((_, i) => i !== 0 && i !== 2),
  );
}

/** serve with the shared password and a public address, its mail to the outbox (or `smtpUrlFile`); the shared password's page adding Ada. */
async function sharedAddsAda(smtpUrlFile?: string): Promise<{ shared: WebSession; page: string }> {
  h = await serveHarness({
    serve: {
      webPassword: SHARED,
      publicUrl: PUBLIC,
      trustProxy: '127.0.0.1',
      mail: { mailFrom: 'Payments team <payments@example.com>', ...(smtpUrlFile ? { smtpUrlFile } : {}) },
    },
  });
  const shared = await signInAs(h.serve.url, { password: SHARED });
  const added = await post(`${h.serve.url}/admin/users`, shared, {
    name: 'Ada Byron',
    role: 'admin',
    email: 'ada@example.com',
  });
  expect(added.status).toBe(200);
  const page = await added.text();
  expect(page).toContain('Ada Byron added as admin. The shared password signs in no more');
  expect(page).toMatch(new RegExp(`<span class="link-text" id="link-text">${PUBLIC}/welcome/[\\w-]{43}</span>`));
  return { shared, page };
}

/** The shared password adds Ada, its first admin (her link mailed to the outbox), who signs in through it. */
async function withAda(): Promise<{ ada: WebSession; adaId: string }> {
  const { shared, page } = await sharedAddsAda();
  expect(page).toContain('Mailed to ada@example.com too.');
  // The shared password's session ended with the first user.
  expect((await get('/admin/users', shared)).status).toBe(303);
  const ada = await welcome(linkOn(page), 'ada-long-password', '/admin/users');
  const adaId = (await (await controls()).user({ name: 'Ada Byron' }))!.id;
  return { ada, adaId };
}

describe("the admin's users page", () => {
  it('mails the link where mail is set up; refuses what would leave the team without an admin', async () => {
    const { ada, adaId } = await withAda();
    const outbox = join(h!.inbox.root, 'mail-outbox');
    const [file] = readdirSync(outbox);
    const mail = await simpleParser(readFileSync(join(outbox, file!)));
    expect(mail.to).toMatchObject({ text: 'ada@example.com' });
    expect(mail.subject).toBe('Payments team: set your password for payer-onboard');
    expect(mail.text).toMatch(new RegExp(`^${PUBLIC}/welcome/[\\w-]{43}$`, 'm'));

    const url = h!.serve.url;
    const self = await post(`${url}/admin/users/${adaId}/disable`, ada);
    expect(self.status).toBe(400);
    expect(await self.text()).toContain('you cannot disable yourself or take away your own admin role');
    expect((await post(`${url}/admin/users/${adaId}/role`, ada, { role: 'approver' })).status).toBe(400);
    expect((await (await controls()).user({ id: adaId }))!).toMatchObject({ role: 'admin' });
    expect((await (await controls()).user({ id: adaId }))!.disabledAt).toBeUndefined();

    const taken = await post(`${url}/admin/users`, ada, { name: 'ada byron', role: 'viewer', email: '' });
    expect(taken.status).toBe(400);
    expect(await taken.text()).toContain('Not added: there is a user named ada byron already.');
    expect((await post(`${url}/admin/users`, ada, { name: 'Bo', role: 'boss' })).status).toBe(400);
    expect((await post(`${url}/admin/users/nobody/disable`, ada)).status).toBe(404);
    // A form without the session's token changes nothing.
    const forged = await fetch(`${url}/admin/users`, {
      method: 'POST',
      redirect: 'manual',
      body: new URLSearchParams({ name: 'Mallory', role: 'admin' }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: ada.cookie },
    });
    expect(forged.status).toBe(403);
    expect(await (await controls()).user({ name: 'Mallory' })).toBeUndefined();
  });

  it('a mail that cannot go is said, the link shown to hand over; neither address nor link in the trail', async () => {
    const files = tempDir();
    const smtpUrlFile = files.write('smtp-url', `smtp://127.0.0.1:${await closedPort()}`);
    chmodSync(smtpUrlFile, 0o600);
    const { page } = await sharedAddsAda(smtpUrlFile);
    expect(page).toMatch(
      /<p id="link-mailed">The mail to ada@example\.com did not go \(cannot reach the SMTP server: [^)]+\): hand the link over yourself\.<\/p>/,
    );
    const [line] = await (await controls()).auditLines({ action: 'password link mailed' }, 0, 10);
    expect(JSON.parse(line!.detail)).toMatchObject({ name: 'Ada Byron', outcome: 'unreachable' });
    expect(line!.detail).not.toMatch(/ada@|welcome/);
    files.remove();
  });
});

describe('the audit trail, read and downloaded', () => {
  it('filters by who, action, subject and days; pages; its CSV guards a formula and records the download', async () => {
    const { ada } = await withAda();
    const url = h!.serve.url;
    const addedPage = await (await post(`${url}/admin/users`, ada, { name: FORMULA, role: 'viewer' })).text();
    const formula = await welcome(linkOn(addedPage), 'formula-long-password', '/payers');
    await post(`${url}/admin/users`, ada, { name: 'Bo', role: 'preparer' });
    const bo = (await (await controls()).user({ name: 'Bo' }))!;
    await post(`${url}/admin/users/${bo.id}/role`, ada, { role: 'approver' });
    await post(`${url}/admin/users/${bo.id}/disable`, ada);

    // Not an admin: every page of the admin's refused.
    for (const path of ['/admin/users', '/admin/audit', '/admin/audit.csv'])
      expect((await get(path, formula)).status).toBe(403);
    expect((await post(`${url}/admin/users`, formula, { name: 'Eve', role: 'admin' })).status).toBe(403);

    const page = async (query: string) => {
      const res = await get(`/admin/audit${query}`, ada);
      return { status: res.status, text: await res.text() };
    };
    expect(auditRows((await page(`?subject=${bo.id}`)).text)).toEqual([
      ['Ada Byron', 'user disabled', bo.id, 'name: Bo'],
      ['Ada Byron', 'user role changed', bo.id, 'name: Bo · from: preparer · to: approver'],
      ['Ada Byron', 'password link made', bo.id, expect.stringMatching(/^name: Bo · expires at: \d{4}-/)],
      ['Ada Byron', 'user added', bo.id, 'name: Bo · role: preparer · email: no'],
    ]);
    const byAction = auditRows((await page('?action=user+added')).text);
    expect(byAction.map(([who, , , detail]) => `${who} ${detail}`)).toEqual([
      'Ada Byron name: Bo · role: preparer · email: no',
      `Ada Byron name: ${FORMULA} · role: viewer · email: no`,
      'shared password name: Ada Byron · role: admin · email: yes',
    ]);
    const byWho = auditRows((await page(`?who=${encodeURIComponent(FORMULA)}`)).text);
    expect(byWho.map(([who, action]) => `${who} ${action}`)).toEqual([`${FORMULA} sign-in`, `${FORMULA} password set`]);

    // Days: the one the lines were written on keeps them all, the day after and the day before none.
    const all = await (await controls()).auditLines({}, 0, 100);
    const day = all[0]!.at.slice(0, 10);
    const next = new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    const before = new Date(Date.parse(`${day}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
    expect(auditRows((await page(`?from=${day}&to=${day}&tz=UTC`)).text)).toHaveLength(all.length);
    expect(auditRows((await page(`?from=${next}&tz=UTC`)).text)).toEqual([]);
    expect(auditRows((await page(`?to=${before}&tz=UTC`)).text)).toEqual([]);
    const bad = await page('?from=2026-02-30');
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('From is not a day: give it as YYYY-MM-DD.');

    // A page of 100, the newest first; the rest on the next.
    const filler = Array.from({ length: 150 }, (_, i) => ({
      at: new Date(Date.parse(all[0]!.at) + 1000 + i).toISOString(),
      who: 'os:ops@host',
      address: 'host',
      action: 'filler',
      subject: `s-${i}`,
      detail: JSON.stringify({ n: i }),
    }));
    await (await controls()).audit(filler);
    const first = await page('?action=filler');
    expect(first.text).toContain('1–100 of 150');
    expect(auditRows(first.text)[0]).toEqual(['os:ops@host', 'filler', 's-149', 'n: 149']);
    const second = auditRows((await page('?action=filler&page=2')).text);
    expect(second).toHaveLength(50);
    expect(second.at(-1)).toEqual(['os:ops@host', 'filler', 's-0', 'n: 0']);

    // The CSV: the page's columns, the formula guarded; the download is itself in the trail, after it.
    const csvRes = await get(`/admin/audit.csv?who=${encodeURIComponent(FORMULA)}`, ada);
    expect(csvRes.status).toBe(200);
    expect(csvRes.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const rows = parse(await csvRes.text()) as string[][];
    const id = (await (await controls()).user({ name: FORMULA }))!.id;
    expect(rows).toEqual([
      ['when (UTC)', 'who', 'address', 'action', 'subject', 'details'],
      [
        expect.stringMatching(/^\d{4}-.*Z$/),
        `'${FORMULA}`,
        '127.0.0.1',
        'sign-in',
        id,
        'role: viewer · how: one-time link',
      ],
      [expect.stringMatching(/^\d{4}-.*Z$/), `'${FORMULA}`, '127.0.0.1', 'password set', id, ''],
    ]);
    const downloads = await (await controls()).auditLines({ action: 'audit downloaded' }, 0, 10);
    expect(downloads.map((l) => [l.who, JSON.parse(l.detail)])).toEqual([['Ada Byron', { who: FORMULA, lines: 2 }]]);
    const whole = parse(await (await get('/admin/audit.csv', ada)).text()) as string[][];
    const kept = await (await controls()).auditLines({}, 0, 1000);
    // Every line up to the download, and not its own.
    expect(whole.slice(1).map((r) => r[3])).toEqual(kept.slice(1).map((l) => l.action));
    expect(kept[0]).toMatchObject({ action: 'audit downloaded', who: 'Ada Byron' });
  });

  it('no route of the page changes or removes a line', async () => {
    const { ada } = await withAda();
    const before = await (await controls()).auditLines({}, 0, 1000);
    const seq = before[0]!.seq;
    const paths = ['/admin/audit', '/admin/audit.csv', `/admin/audit/${seq}`, `/admin/audit/lines/${seq}`];
    for (const path of paths)
      for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
        const res = await fetch(`${h!.serve.url}${path}`, {
          method,
          redirect: 'manual',
          body: new URLSearchParams({ _csrf: ada.csrf, who: 'someone else' }).toString(),
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            'x-csrf-token': ada.csrf,
            cookie: ada.cookie,
          },
        });
        expect([`${method} ${path}`, res.status]).toEqual([`${method} ${path}`, 404]);
      }
    expect(await (await controls()).auditLines({}, 0, 1000)).toEqual(before);
  });
});
