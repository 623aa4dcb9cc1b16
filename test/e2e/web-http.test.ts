import { existsSync } from 'node:fs';
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { payersCsv } from '../helpers/runHarness.js';
import { serveHarness } from '../helpers/serveHarness.js';
import { waitFor } from '../helpers/waitFor.js';

// The web page's refusals, spoken to as an attacker would: plain HTTP, no browser to behave.
const PASSWORD = 'correct horse battery staple';
let h: Awaited<ReturnType<typeof serveHarness>> | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** A request with the Host header of one's choosing (fetch will not send another host's name). */
function statusWithHost(url: string, method: string, headers: Record<string, string>, body?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method,
      headers: { ...headers, ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
    });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * A sign-in from the local address `from`, saying it forwards for `forwardedFor` when given, as `name` (none: the
 * shared password): its status.
 */
function signInFrom(url: string, from: string, password: string, forwardedFor?: string, name = ''): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/login`, {
      method: 'POST',
      localAddress: from,
      agent: false,
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        ...(forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor }),
      },
    });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end(new URLSearchParams({ name, password }).toString());
  });
}

function form(fields: Record<string, string>): { body: string; headers: Record<string, string> } {
  return {
    body: new URLSearchParams(fields).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  };
}

async function signedIn(url: string): Promise<{ cookie: string; csrf: string }> {
  const res = await fetch(`${url}/login`, { method: 'POST', redirect: 'manual', ...form({ password: PASSWORD }) });
  const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0]!;
  const page = await (await fetch(`${url}/`, { headers: { cookie } })).text();
  return { cookie, csrf: /name="_csrf" value="([^"]+)"/.exec(page)![1]! };
}

describe('the web page over plain HTTP', () => {
  it('answers only to its own names: a page of another site pointed at this machine (DNS rebinding) is refused', async () => {
    h = await serveHarness({
      serve: { webPassword: PASSWORD, publicUrl: 'https://payers.example.com', trustProxy: '127.0.0.1' },
    });
    const url = h.serve.url;
    const evil = { host: 'evil.example', origin: 'http://evil.example' };
    expect(await statusWithHost(`${url}/login`, 'POST', evil, `password=${encodeURIComponent(PASSWORD)}`)).toBe(421);
    expect(await statusWithHost(`${url}/login`, 'GET', { host: 'payers.example.com' })).toBe(200);
    expect(await statusWithHost(`${url}/login`, 'GET', { host: 'localhost' })).toBe(421);
    // Every answer carries the security headers, a 404 and the health check too.
    for (const path of ['/nope', '/healthz', '/login'])
      expect((await fetch(`${url}${path}`)).headers.get('content-security-policy')).toContain("default-src 'none'");
  });

  it('wrong passwords sent all at once: a few are read, the rest refused unread; a browser that signed in before is not held up', async () => {
    h = await serveHarness({ serve: { webNow: () => 1_000_000, webPassword: PASSWORD } });
    const url = h.serve.url;
    const before = await fetch(`${url}/login`, { method: 'POST', ...form({ password: PASSWORD }), redirect: 'manual' });
    const device = before.headers
      .getSetCookie()
      .find((c) => c.startsWith('payer_onboard_device='))!
      .split(';')[0]!;
    const tries = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        fetch(`${url}/login`, { method: 'POST', ...form({ password: `guess-${i}` }) }),
      ),
    );
    const statuses = tries.map((r) => r.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(7);
    // The password is slowed from any address for a fresh browser; the browser that signed in with it before is not.
    expect(await signInFrom(url, '127.0.0.2', PASSWORD)).toBe(429);
    const known = await fetch(`${url}/login`, {
      method: 'POST',
      body: new URLSearchParams({ password: PASSWORD }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: device },
      redirect: 'manual',
    });
    expect(known.status).toBe(303);
  });

  it('a forged X-Forwarded-For from a peer it does not trust is ignored: the guesser is still the one slowed', async () => {
    h = await serveHarness({ serve: { webNow: () => 1_000_000, webPassword: PASSWORD } });
    const url = h.serve.url;
    // A guesser at many names, claiming a new address each time: all counted against its own.
    const guesses = Array.from({ length: 20 }, (_, i) =>
      signInFrom(url, '127.0.0.1', 'guess', `203.0.113.${i}`, `name-${i}`),
    );
    expect(await Promise.all(guesses)).toEqual(Array(20).fill(401));
    expect(await signInFrom(url, '127.0.0.1', PASSWORD, '203.0.113.77')).toBe(429);
    expect(await signInFrom(url, '127.0.0.2', PASSWORD, '203.0.113.77')).toBe(303);
  });

  it('behind a proxy it trusts (--trust-proxy), the client it forwards is counted, never the proxy', async () => {
    h = await serveHarness({ serve: { webNow: () => 1_000_000, webPassword: PASSWORD, trustProxy: '127.0.0.1' } });
    const url = h.serve.url;
    const guesses = Array.from({ length: 20 }, (_, i) =>
      signInFrom(url, '127.0.0.1', 'guess', '203.0.113.1', `name-${i}`),
    );
    expect(await Promise.all(guesses)).toEqual(Array(20).fill(401));
    expect(await signInFrom(url, '127.0.0.1', PASSWORD, '203.0.113.1')).toBe(429);
    // The proxy's other clients, and a peer it does not trust whatever it claims, are not slowed by that guesser.
    expect(await signInFrom(url, '127.0.0.1', PASSWORD, '203.0.113.7')).toBe(303);
    expect(await signInFrom(url, '127.0.0.2', PASSWORD, '203.0.113.1')).toBe(303);
  });

  it('an https --public-url without --trust-proxy is refused at start: every form through the proxy would be', async () => {
    await expect(
      serveHarness({ serve: { webPassword: PASSWORD, publicUrl: 'https://payers.example.com' } }),
    ).rejects.toThrow(
      '--public-url: https://payers.example.com is served by a TLS proxy: name its address with --trust-proxy',
    );
  });

  it('signing out ends the session whatever the form says; a sent upload keeps no copy of the file', async () => {
    h = await serveHarness({ serve: { webPassword: PASSWORD } });
    const url = h.serve.url;
    const { cookie, csrf } = await signedIn(url);
    const upload = new FormData();
    upload.append('file', new Blob([payersCsv(['u-1'])]), '.hidden payers.csv');
    const sent = await fetch(`${url}/uploads?_csrf=${csrf}`, {
      method: 'POST',
      body: upload,
      headers: { cookie },
      redirect: 'manual',
    });
    expect(sent.status).toBe(303);
    const at = sent.headers.get('location')!;
    const page = await (await fetch(`${url}${at}`, { headers: { cookie } })).text();
    expect(page).toContain('<h1>hidden payers.csv</h1>');
    // The token is taken from the query of the upload form only.
    const viaQuery = await fetch(`${url}${at}/send?_csrf=${csrf}`, {
      method: 'POST',
      headers: { cookie },
      redirect: 'manual',
    });
    expect(viaQuery.status).toBe(403);
    const send = await fetch(`${url}${at}/send`, {
      method: 'POST',
      ...form({ _csrf: csrf }),
      headers: { ...form({}).headers, cookie },
      redirect: 'manual',
    });
    expect(send.status).toBe(303);
    expect(h.inbox.list('incoming').concat(h.inbox.list('processing'), h.inbox.list('done'))).toContain(
      'hidden payers.csv',
    );
    const id = at.split('/').pop()!;
    expect(existsSync(h.inbox.path('.web', 'uploads', id, 'hidden payers.csv'))).toBe(false);

    await fetch(`${url}/logout`, {
      method: 'POST',
      ...form({ _csrf: 'wrong' }),
      headers: { ...form({}).headers, cookie },
      redirect: 'manual',
    });
    expect((await fetch(`${url}/`, { headers: { cookie }, redirect: 'manual' })).status).toBe(303);
  });

  it('a row checked again needs the session, this site and its token; it answers marks, never a value; nothing is logged', async () => {
    h = await serveHarness({ serve: { webPassword: PASSWORD } });
    const url = h.serve.url;
    const { cookie, csrf } = await signedIn(url);
    const file = new FormData();
    file.append('file', new Blob([payersCsv(['r-1', 'r-2'], { 'r-2': { email: 'bad-at-example' } })]), 'payers.csv');
    const taken = await fetch(`${url}/uploads?_csrf=${csrf}`, {
      method: 'POST',
      body: file,
      headers: { cookie },
      redirect: 'manual',
    });
    const at = taken.headers.get('location')!;
    const row = JSON.stringify({ line: 3, cells: { '1': 'r-2-fixed@example.com' }, out: false });
    const json = { 'content-type': 'application/json' };
    const post = (path: string, headers: Record<string, string>, body = row) =>
      fetch(`${url}${at}${path}`, { method: 'POST', body, headers: { ...json, ...headers }, redirect: 'manual' });
    expect((await post('/rows', { 'x-csrf-token': csrf })).status).toBe(401);
    expect((await post('/rows', { cookie })).status).toBe(403);
    expect((await post('/rows', { cookie, 'x-csrf-token': csrf, origin: 'http://evil.example' })).status).toBe(403);
    expect((await post('/mapping', { cookie }, '{}')).status).toBe(403);
    expect((await post('/rows', { cookie, 'x-csrf-token': csrf }, '{"line":"3"}')).status).toBe(400);

    const answer = await post('/rows', { cookie, 'x-csrf-token': csrf });
    expect(answer.status).toBe(200);
    const text = await answer.text();
    const checked = JSON.parse(text);
    expect(checked).toMatchObject({
      check: { rows: 2, ok: 2, invalid: 0, payers: 2, withBank: 2 },
      marks: {},
      leftOut: [],
    });
    // The page's counts drawn as the page draws them, for the page's script to put in place.
    expect(checked.page.title).toBe('Rows to fix: none left');
    expect(checked.page.said).toBe('2 rows ready to send, none to fix');
    expect(checked.page.facts).toMatch(/<dd data-fact="payers">2, 2 of them with a bank account<\/dd>/);
    expect(checked.page.send).toContain('<button type="submit">Send 2 rows</button>');
    expect(checked.page.send).toContain(`name="_csrf" value="${csrf}"`);
    expect(text).not.toContain('r-2-fixed');
    expect(h.stderr()).not.toMatch(/r-2-fixed|bad-at-example/);
  });

  it('a separate bank-details file is uploaded on its own, after its payers: its accounts are attached once they pass KYC', async () => {
    h = await serveHarness({ serve: { webPassword: PASSWORD } });
    const url = h.serve.url;
    // The payers first, without bank columns (as a finance team keeps them apart), dropped and run.
    const payerColumns = 14;
    // With the agreementCompleted column: the team collected their signatures.
    const cut = (line: string) => {
      const cells = line.split(',');
      return [...cells.slice(0, payerColumns), cells.at(-1)].join(',');
    };
    const payers = payersCsv(['k-1', 'k-2']).trim().split('\n').map(cut).join('\n');
    h.inbox.drop('payers.csv', `${payers}\n`);
    await waitFor(() => h!.waitingFiles() === 1, 'the payers to wait for KYC');

    const { cookie, csrf } = await signedIn(url);
    const bank = [
      'clientUserId,bankName,accountName,beneficiaryType,currency,addressLine1,city,country,dateOfBirth,postalCode,accountNumber,routingNumber,accountType',
      'k-1,First Bank,Ada Lovelace,individual,USD,1 Main St,Springfield,US,1980-12-31,62701,000123456789,021000021,checking',
      'k-2,First Bank,Ada Lovelace,individual,USD,1 Main St,Springfield,US,1980-12-31,62701,000987654321,021000021,checking',
    ].join('\n');
    const upload = new FormData();
    upload.append('file', new Blob([`${bank}\n`]), 'bank details.csv');
    const sent = await fetch(`${url}/uploads?_csrf=${csrf}`, {
      method: 'POST',
      body: upload,
      headers: { cookie },
      redirect: 'manual',
    });
    const at = sent.headers.get('location')!;
    const page = await (await fetch(`${url}${at}`, { headers: { cookie } })).text();
    expect(page).toMatch(/Payers<\/dt><dd[^>]*>2, 2 of them with a bank account/);
    const send = await fetch(`${url}${at}/send`, {
      method: 'POST',
      body: new URLSearchParams({ _csrf: csrf }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
      redirect: 'manual',
    });
    expect(send.status).toBe(303);
    await waitFor(() => h!.waitingFiles() === 2, 'the bank rows to wait for KYC too');
    for (const id of ['k-1', 'k-2']) h.sandbox.setKyc(id, 'approved');
    await waitFor(
      () => ['k-1', 'k-2'].every((id) => h!.sandbox.payer(id)?.paymentDetails.length === 1),
      'the accounts attached',
    );
    expect(h.sandbox.stats().duplicatePaymentDetails).toBe(0);
  });
});
