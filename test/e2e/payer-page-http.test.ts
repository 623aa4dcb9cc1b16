import { request } from 'node:http';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { journalPlace } from '../../src/journal/stateDir.js';
import { openStore } from '../../src/store/openStore.js';
import { STORE_FILE } from '../../src/store/SqliteStore.js';
import type { PayerDirectoryTables, Store } from '../../src/store/Store.js';
import { issueLink } from '../../src/web/payerLinks.js';
import { API_KEY, payersCsv } from '../helpers/runHarness.js';
import { serveHarness } from '../helpers/serveHarness.js';
import { auditIn } from '../helpers/storeOnDisk.js';
import { waitFor } from '../helpers/waitFor.js';

// The payer's own page, spoken to as a payer's browser and as a guesser would: plain HTTP against a real serve over
// the sandbox, the payer registered by a file dropped in its inbox (the run fills the directory as it goes).

const ID = 'payer-7f3a91';
/** The row's personal values besides the first name: none of them may reach the page. */
const PERSONAL = {
  firstName: 'Wilhelmina',
  lastName: 'Quackenbush',
  email: 'w.quackenbush@example.org',
  ssn: '987-65-4320',
  phone: '+12175550199',
  addressLine1: '77 Obscure Lane',
  dateOfBirth: '1979-03-14',
  accountNumber: '000987654321',
};
const REFERENCE_ORIGINS = 'https://request.network https://core-api-staging.pay.so';
const PASSWORD = 'correct horse battery staple';

/** A session of the team's page: its cookie and its CSRF token. */
async function signedIn(url: string): Promise<{ cookie: string; csrf: string }> {
  const res = await fetch(`${url}/login`, {
    method: 'POST',
    redirect: 'manual',
    body: new URLSearchParams({ password: PASSWORD }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0]!;
  const start = await (await fetch(`${url}/`, { headers: { cookie } })).text();
  return { cookie, csrf: /name="_csrf" value="([^"]+)"/.exec(start)![1]! };
}

let opened: Awaited<ReturnType<typeof payerServe>> | undefined;
afterEach(async () => {
  await opened?.close();
  opened = undefined;
});

/** serve with its payers' page on (loopback's public URL), one payer registered from a file, its store opened too. */
async function payerServe(serve: Record<string, unknown> = {}) {
  const h = await serveHarness({ serve: { publicUrl: 'http://localhost:9', ...serve } });
  let store: Store | undefined;
  try {
    h.inbox.drop('payers.csv', payersCsv([ID], { [ID]: { ...PERSONAL, agreementCompleted: '' } }));
    await waitFor(() => h.waitingFiles() > 0, 'the file to run and its row to wait');
    const place = journalPlace({ dir: h.tmp.path('state') }, h.sandbox.url, API_KEY);
    store = await openStore(place);
    const directory: PayerDirectoryTables = store.directory(place.service);
    await waitFor(async () => (await directory.entries([ID])).has(ID), 'the directory entry');
    const link = async (days = 30, now = new Date()) =>
      (await issueLink(directory, ID, { now, days, publicUrl: 'http://localhost:9' })).url.split('/p/')[1]!;
    return {
      h,
      url: h.serve.url,
      directory,
      link,
      async close() {
        await store?.close();
        await h.close();
      },
    };
  } catch (error) {
    await store?.close();
    await h.close();
    throw error;
  }
}

/** The link opened: the cookie it gives (name=value) and the answer. */
async function openLink(url: string, token: string, headers: Record<string, string> = {}) {
  const answer = await fetch(`${url}/p/${token}`, { redirect: 'manual', headers });
  const setCookie = answer.headers.get('set-cookie') ?? '';
  return { answer, setCookie, cookie: setCookie.split(';')[0]! };
}

async function page(url: string, cookie: string): Promise<{ status: number; text: string; headers: Headers }> {
  const answer = await fetch(`${url}/p`, { headers: { cookie }, redirect: 'manual' });
  return { status: answer.status, text: await answer.text(), headers: answer.headers };
}

const csrfOf = (text: string) => /data-csrf="([^"]+)"/.exec(text)![1]!;

function sign(url: string, headers: Record<string, string>) {
  return fetch(`${url}/p/agreement`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: '{}',
  });
}

/** serve's events as its store has them: their delivery ids and bodies. */
function eventBodies(stateDir: string): Array<{ id: string; body: Record<string, string> }> {
  const db = new DatabaseSync(join(stateDir, STORE_FILE), { readOnly: true });
  try {
    return db
      .prepare('SELECT id, event FROM serve_events ORDER BY received_at')
      .all()
      .map((row) => ({ id: String(row['id']), body: JSON.parse(String(row['event'])) as Record<string, string> }));
  } finally {
    db.close();
  }
}

describe("the payer's own page", () => {
  it('a link is exchanged for a cookie and a redirect without the token; the page greets the first name and shows nothing else of the payer', async () => {
    opened = await payerServe();
    const { url, h } = opened;
    const token = await opened.link();
    const { answer, setCookie, cookie } = await openLink(url, token);
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe('/p');
    expect(answer.headers.get('referrer-policy')).toBe('no-referrer');
    expect(setCookie).toMatch(
      /^payer_onboard_link=[0-9a-f]{64}\.[\w-]+; Path=\/p; HttpOnly; SameSite=Lax; Max-Age=\d+$/,
    );
    expect(setCookie).not.toContain(token);

    const shown = await page(url, cookie);
    expect(shown.status).toBe(200);
    expect(shown.text).toContain('<h1>Hello Wilhelmina</h1>');
    expect(shown.text).toContain('Sign the agreement');
    expect(shown.text).toContain(`${h.sandbox.url}/__sandbox/agreement/`);
    expect(shown.text).toMatch(/href="[^"]+\/__sandbox\/kyc\/[^"]+" target="_blank" rel="noopener noreferrer"/);
    for (const [field, value] of Object.entries(PERSONAL)) {
      if (field === 'firstName') continue;
      expect(shown.text, field).not.toContain(value);
    }
    expect(shown.text).not.toContain(ID);
    expect(shown.text).not.toContain(token);

    // The headers: the team page's, but frames from the agreement's origins only and never a Referer.
    const policy = shown.headers.get('content-security-policy')!;
    expect(policy).toContain(`frame-src ${h.sandbox.url} ${REFERENCE_ORIGINS};`);
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain("frame-ancestors 'none'");
    expect(shown.headers.get('referrer-policy')).toBe('no-referrer');
    expect(shown.headers.get('x-content-type-options')).toBe('nosniff');
    expect(shown.headers.get('cache-control')).toBe('no-store');
    expect(shown.headers.get('cross-origin-opener-policy')).toBe('same-origin');
    // The script and stylesheet come from under /p, with the same headers.
    const script = await fetch(`${url}/p/assets/payer.js`);
    expect(script.headers.get('content-type')).toContain('javascript');
    expect(script.headers.get('referrer-policy')).toBe('no-referrer');

    // The link's first opening is noted; no token is ever in what serve says.
    expect((await opened.directory.link(setCookie.split('=')[1]!.split('.')[0]!))?.openedAt).toBeDefined();
    expect(h.stderr()).not.toContain(token);
    expect(h.stderr()).toContain("serve: the payers' own page is on: their links lead to http://localhost:9/p/");
  });

  it('an unknown, expired or revoked link, a forged cookie and a cookie of a revoked link all get the one same page', async () => {
    opened = await payerServe();
    const { url } = opened;
    const expected = await fetch(`${url}/p/${'A'.repeat(43)}`);
    expect(expected.status).toBe(404);
    const notValid = await expected.text();
    expect(notValid).toContain('This link has expired or is not valid');
    expect(notValid).toContain('Ask the team that sent it for a new one.');
    expect(expected.headers.get('referrer-policy')).toBe('no-referrer');

    const expired = await opened.link(30, new Date(Date.now() - 31 * 86_400_000));
    const live = await opened.link();
    const { cookie } = await openLink(url, live);
    expect((await page(url, cookie)).status).toBe(200);
    // A cookie made up for the live link (its hash is no secret to whoever read the store), or for no link at all.
    const [hash] = cookie.split('=')[1]!.split('.');
    for (const forged of [`payer_onboard_link=${hash}.${'x'.repeat(43)}`, `payer_onboard_link=${hash}`, '']) {
      const shown = await page(url, forged);
      expect(shown.status, forged).toBe(404);
      expect(shown.text).toBe(notValid);
    }
    await opened.directory.revokeLinks(ID, new Date().toISOString());
    for (const token of ['short', expired, live, `${'b'.repeat(42)}-`]) {
      const answer = await fetch(`${url}/p/${token}`, { redirect: 'manual' });
      expect(answer.status, token).toBe(404);
      expect(await answer.text()).toBe(notValid);
      expect(answer.headers.get('set-cookie')).toBeNull();
    }
    // The cookie of the link revoked: every request looks at the link again.
    const shown = await page(url, cookie);
    expect(shown.status).toBe(404);
    expect(shown.text).toBe(notValid);
    expect((await fetch(`${url}/p/live`, { headers: { cookie } })).status).toBe(404);
  });

  it('the signature is taken only from the page (its token, this site); it is recorded once, with an event for the worker', async () => {
    opened = await payerServe();
    const { url, h } = opened;
    const { cookie } = await openLink(url, await opened.link());
    const csrf = csrfOf((await page(url, cookie)).text);

    expect((await sign(url, { cookie })).status).toBe(403);
    expect((await sign(url, { cookie, 'x-csrf-token': 'nonce.wrong' })).status).toBe(403);
    expect((await sign(url, { cookie, 'x-csrf-token': csrf, origin: 'https://evil.example' })).status).toBe(403);
    expect((await sign(url, { cookie, 'x-csrf-token': csrf, 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect((await sign(url, { 'x-csrf-token': csrf })).status).toBe(404);
    expect((await opened.directory.signatures([ID])).size).toBe(0);

    // As a browser posts it under the page's no-referrer policy: Origin null, Sec-Fetch-Site same-origin.
    const answer = await sign(url, { cookie, 'x-csrf-token': csrf, origin: 'null', 'sec-fetch-site': 'same-origin' });
    expect(answer.status).toBe(200);
    const { sections } = (await answer.json()) as { sections: Array<{ id: string; html: string }> };
    expect(sections.map((s) => s.id)).toEqual(['step-agreement', 'step-kyc', 'step-bank']);
    expect(sections[0]!.html).toMatch(/data-state="(recording|done)"/);
    expect((await opened.directory.signatures([ID])).get(ID)).toMatchObject({ how: 'page' });
    const signed = eventBodies(h.tmp.path('state')).filter((e) => e.body.event === 'agreement.signed');
    expect(signed.map((e) => e.body)).toEqual([{ event: 'agreement.signed', clientUserId: ID, source: 'payer-page' }]);
    // A delivery id of its own, never the service's.
    expect(signed[0]!.id).toMatch(/^page-[0-9a-f]{32}$/);

    // The run the event wakes completes the agreement with the service, through the journal.
    await waitFor(async () => (await page(url, cookie)).text.includes('Done: you signed it.'), 'the agreement done');
    expect(h.sandbox.stats().agreementsCompleted).toBe(1);
    // Posted again (the frame's message twice): the first signature stands, and no second event goes out.
    expect((await sign(url, { cookie, 'x-csrf-token': csrfOf((await page(url, cookie)).text) })).status).toBe(200);
    expect(eventBodies(h.tmp.path('state')).filter((e) => e.body.event === 'agreement.signed')).toHaveLength(1);
  });

  it("the live stream carries this payer's steps only, as they change, and ends once the link is revoked", async () => {
    opened = await payerServe();
    const { url, h } = opened;
    const other = 'payer-other-51';
    h.inbox.drop('others.csv', payersCsv([other], { [other]: { firstName: 'Otto' } }));
    await waitFor(() => Object.keys(h.waiting()).length === 2, "the other payer's row to wait");
    const { cookie } = await openLink(url, await opened.link());
    const stream = await fetch(`${url}/p/live`, { headers: { cookie } });
    expect(stream.headers.get('content-type')).toBe('text/event-stream');
    expect(stream.headers.get('referrer-policy')).toBe('no-referrer');
    let text = '';
    const reader = stream.body!.getReader();
    const reading = (async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        text += new TextDecoder().decode(value);
      }
    })();
    const states = () => text.split('event: state\n').length - 1;
    await waitFor(() => states() === 1, 'the steps as they stand when the stream opens');

    // The other payer passes KYC: their row runs, serve's change reaches every stream, this one sends nothing.
    h.sandbox.setKyc(other, 'approved');
    await waitFor(() => h.sandbox.stats().paymentDetailsCreated === 1, "the other payer's row to run");
    // This payer passes KYC: the stream says so.
    h.sandbox.setKyc(ID, 'approved');
    await waitFor(() => text.includes('Done: your identity is verified.'), "this payer's KYC on the stream");
    expect(states()).toBe(2);
    expect(text).not.toMatch(new RegExp(`Otto|${other}|${ID}|Wilhelmina`));

    await opened.directory.revokeLinks(ID, new Date().toISOString());
    h.inbox.drop('more.csv', payersCsv(['payer-third-9']));
    await waitFor(() => text.includes('event: gone'), 'the stream to end');
    await reading;
  });

  it("a guesser is held back after ten links that are no one's in a minute, even with a real link then", async () => {
    opened = await payerServe();
    const { url } = opened;
    const real = await opened.link();
    for (let i = 0; i < 10; i++) expect((await fetch(`${url}/p/${String(i).padStart(43, 'g')}`)).status).toBe(404);
    const held = await fetch(`${url}/p/${real}`, { redirect: 'manual' });
    expect(held.status).toBe(429);
    expect(Number(held.headers.get('retry-after'))).toBeGreaterThan(500);
    expect(await held.text()).toContain('Too many tries');
    // Another address is not held back (loopback has many).
    expect(await statusFrom(url, '127.0.0.2', `/p/${real}`)).toBe(303);
  });

  it('behind the TLS proxy its cookie is Secure, and the page answers only to its own names', async () => {
    opened = await payerServe({ publicUrl: 'https://payers.example.com', trustProxy: '127.0.0.1' });
    const { url } = opened;
    const token = await opened.link();
    const { answer, setCookie } = await openLink(url, token, {
      host: 'payers.example.com',
      'x-forwarded-proto': 'https',
    });
    expect(answer.status).toBe(303);
    expect(setCookie).toMatch(/; Secure$/);
    expect(await statusFrom(url, '127.0.0.1', `/p/${token}`, { host: 'evil.example' })).toBe(421);
  });

  it('a public URL that would carry the links in the clear, or an origin list that is not one, is refused at start', async () => {
    await expect(serveHarness({ serve: { publicUrl: 'http://payers.example.com' } })).rejects.toThrow(
      "--public-url: http://payers.example.com would carry the payers' personal links in the clear",
    );
    await expect(
      serveHarness({ serve: { publicUrl: 'http://localhost:9', agreementOrigins: 'https://ok.example,ftp://x' } }),
    ).rejects.toThrow('--agreement-origins: ftp://x is not an origin');
    await expect(
      serveHarness({ serve: { publicUrl: 'http://localhost:9', agreementOrigins: 'https://ok.example/path' } }),
    ).rejects.toThrow('--agreement-origins: https://ok.example/path is not an origin');
  });

  it("on the team's page of a payer: a new link shown once to copy, and the payer's links revoked", async () => {
    opened = await payerServe({ webPassword: PASSWORD });
    const { url, h } = opened;
    const team = await signedIn(url);
    const teamPage = async () => fetch(`${url}/payers/${ID}`, { headers: { cookie: team.cookie } });
    await waitFor(async () => (await teamPage()).status === 200, 'the payer on the Payers page');
    const before = await (await teamPage()).text();
    expect(before).toContain(`action="/payers/${ID}/links/new"`);
    expect(before).toContain(`action="/payers/${ID}/links/revoke"`);
    const post = (path: string, csrf: string) =>
      fetch(`${url}/payers/${ID}/links/${path}`, {
        method: 'POST',
        body: new URLSearchParams({ _csrf: csrf }).toString(),
        headers: { cookie: team.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      });
    expect((await post('new', 'wrong')).status).toBe(403);
    const made = await post('new', team.csrf);
    expect(made.status).toBe(200);
    const shown = await made.text();
    const token = /http:\/\/localhost:9\/p\/([\w-]{43})/.exec(shown)![1]!;
    expect(shown).toContain(`data-copy="http://localhost:9/p/${token}"`);
    const { cookie } = await openLink(url, token);
    expect((await page(url, cookie)).status).toBe(200);
    // Shown once: the team's page of the payer never holds it.
    expect(await (await teamPage()).text()).not.toContain(token);

    const revoked = await post('revoke', team.csrf);
    expect(await revoked.text()).toContain('1 link revoked: the payer&#39;s page now says the link is not valid.');
    expect((await page(url, cookie)).status).toBe(404);
    expect(h.stderr()).not.toContain(token);
    // Both in the audit trail, by the payer's id (beside the run's lines of the payer), the token in neither.
    const trail = auditIn(h.tmp.path('state')).filter((line) => line.subject === ID && !line.action.startsWith('run'));
    expect(trail.map((line) => [line.who, line.action])).toEqual([
      ['shared password', 'new link'],
      ['shared password', 'revoke'],
    ]);
    expect(trail[1]!.detail).toEqual({ links: 1 });
    expect(JSON.stringify(trail)).not.toContain(token);
  });

  it("--agreement-origins replaces the reference app's two; the agreementUrl's own origin stays", async () => {
    opened = await payerServe({ agreementOrigins: 'https://agree.example.com' });
    const { url, h } = opened;
    const { cookie } = await openLink(url, await opened.link());
    const shown = await page(url, cookie);
    expect(shown.headers.get('content-security-policy')).toContain(
      `frame-src ${h.sandbox.url} https://agree.example.com;`,
    );
    expect(shown.text).toContain(`data-origins="${h.sandbox.url} https://agree.example.com"`);
  });
});

/** A GET from the local address `from`: its status. */
function statusFrom(url: string, from: string, path: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { localAddress: from, agent: false, headers });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}
