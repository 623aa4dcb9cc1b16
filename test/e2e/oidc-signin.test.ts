import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORE_FILE } from '../../src/store/SqliteStore.js';
import {
  freePort,
  OIDC_CLIENT_ID,
  OIDC_CLIENT_SECRET,
  startOidcProvider,
  throughProvider,
} from '../helpers/oidcProvider.js';
import { API_KEY } from '../helpers/runHarness.js';
import { serveHarness } from '../helpers/serveHarness.js';
import { spawnBin } from '../helpers/spawnBin.js';

// Sign-in with the company's identity provider: serve against oidc-provider on loopback, its login and consent pages
// driven as a browser would (a cookie jar, redirects followed by hand).

/** The people the provider knows, by login; `groups` is the role claim serve is told of. */
const ACCOUNTS = {
  ada: { email: 'Ada@Example.com', email_verified: true, name: 'Ada at the provider', groups: ['staff'] },
  bob: { email: 'bob@example.com', email_verified: true, name: 'Bob Stone', groups: ['viewer', 'preparer', 'staff'] },
  cy: { email: 'cy@example.com', email_verified: true, name: 'Cy' },
  dee: { email: 'dee@example.com', email_verified: false, name: 'Dee', groups: 'admin' },
  eve: { email: 'eve@example.com', email_verified: true, groups: 'approver' },
  fay: { email: 'fay@example.com', email_verified: true, groups: 'admin' },
};

let provider: Awaited<ReturnType<typeof startOidcProvider>>;
let h: Awaited<ReturnType<typeof serveHarness>>;
let url: string;

beforeAll(async () => {
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  provider = await startOidcProvider(`${url}/login/oidc/callback`, ACCOUNTS);
  h = await serveHarness({
    serve: {
      port,
      publicUrl: url,
      oidcIssuer: provider.issuer,
      oidcClientId: OIDC_CLIENT_ID,
      oidcClientSecret: OIDC_CLIENT_SECRET,
      oidcRoleClaim: 'groups',
      // The page's clock stopped: a wait of the throttle must not pass while a loaded machine answers.
      webNow: () => 1_000_000,
    },
  });
  // Users an admin added from the command line, by their e-mail: one is then disabled.
  const added = await Promise.all([
    users(['add', 'Ada Byron', '--role', 'approver', '--email', 'ada@example.com']),
    users(['add', 'Eve', '--role', 'viewer', '--email', 'eve@example.com']),
    users(['add', 'Fay', '--role', 'viewer', '--email', 'fay@example.com']),
  ]);
  expect(added.map((a) => a.code)).toEqual([0, 0, 0]);
  expect((await users(['disable', 'Fay'])).code).toBe(0);
});

afterAll(async () => {
  await h?.close();
  await provider?.close();
});

function users(args: string[]) {
  return spawnBin(
    ['users', ...args, '--state-dir', h.tmp.path('state'), '--base-url', h.sandbox.url, '--public-url', url],
    {
      cwd: h.tmp.dir,
      env: { PAYER_API_KEY: API_KEY },
    },
  ).done;
}

/** What serve's store holds: the audit trail's lines since `seq`, and a user by e-mail. */
function store() {
  const db = new DatabaseSync(join(h.tmp.path('state'), STORE_FILE), { readOnly: true });
  try {
    const lines = db.prepare('SELECT seq, who, action, subject, detail FROM audit_trail ORDER BY seq').all();
    const people = db.prepare('SELECT name, email, role, created_by FROM web_users ORDER BY created_at').all();
    return { lines: lines.map((l) => ({ ...l, detail: JSON.parse(String(l.detail)) })), people };
  } finally {
    db.close();
  }
}

/** Signs in through the provider as `login`: serve's answer to the callback, and the page it leads to with its cookies. */
async function signIn(login: string) {
  const flow = await throughProvider(url, login);
  const res = await flow.back();
  const cookie = res.headers
    .getSetCookie()
    .map((line) => line.split(';')[0]!)
    .filter((pair) => !pair.endsWith('='))
    .join('; ');
  return { res, cookie, text: await res.text() };
}

async function startPage(cookie: string): Promise<string> {
  return (await fetch(`${url}/payers`, { headers: { cookie } })).text();
}

describe('sign-in with the identity provider', () => {
  it('offers it on the sign-in page', async () => {
    const page = await (await fetch(`${url}/login`)).text();
    expect(page).toContain('<a class="button" href="/login/oidc">Sign in with your company account</a>');
    expect(h.stderr()).toContain(`serve: sign-in with the identity provider ${provider.issuer} is on`);
  });

  it('signs in a user an admin added with that e-mail, with the role the admin gave', async () => {
    const ada = await signIn('ada');
    // A page of serve's own moves on to the start: a redirect from the provider's site would leave the session behind.
    expect(ada.res.status).toBe(200);
    expect(ada.text).toContain('<meta http-equiv="refresh" content="0; url=/">');
    expect(ada.cookie).toMatch(/payer_onboard_session=[\w-]+; payer_onboard_device=/);
    expect(await startPage(ada.cookie)).toContain('Ada Byron (approver)');
    const last = store().lines.at(-1)!;
    expect(last).toMatchObject({ who: 'Ada Byron', action: 'sign-in', detail: { role: 'approver', how: 'oidc' } });
  });

  it('adds someone no admin added when the role claim names a role, with the highest it names', async () => {
    const bob = await signIn('bob');
    expect(bob.res.status).toBe(200);
    expect(await startPage(bob.cookie)).toContain('Bob Stone (preparer)');
    const { lines, people } = store();
    expect(people).toContainEqual({
      name: 'Bob Stone',
      email: 'bob@example.com',
      role: 'preparer',
      created_by: 'oidc',
    });
    expect(lines.slice(-2)).toMatchObject([
      { who: 'oidc', action: 'user added', detail: { name: 'Bob Stone', role: 'preparer', email: true } },
      { who: 'Bob Stone', action: 'sign-in', detail: { role: 'preparer', how: 'oidc' } },
    ]);
  });

  it('gives a user the role the claim names, over the one they had', async () => {
    const eve = await signIn('eve');
    expect(await startPage(eve.cookie)).toContain('Eve (approver)');
    expect(store().lines.slice(-2)).toMatchObject([
      { who: 'oidc', action: 'user role changed', detail: { name: 'Eve', from: 'viewer', to: 'approver' } },
      { who: 'Eve', action: 'sign-in', detail: { role: 'approver', how: 'oidc' } },
    ]);
  });

  it('refuses someone no admin added and no role names, an unverified e-mail, and a disabled user', async () => {
    const before = store();
    const cy = await signIn('cy');
    expect(cy.res.status).toBe(403);
    expect(cy.text).toContain('You are not a user here yet: ask an admin to add you.');
    expect(cy.cookie).toBe('');
    const dee = await signIn('dee');
    expect(dee.res.status).toBe(403);
    expect(dee.text).toContain('your e-mail address is not verified');
    const fay = await signIn('fay');
    expect(fay.res.status).toBe(403);
    expect(fay.text).toContain('Your user here is disabled');
    const after = store();
    expect(after.people).toHaveLength(before.people.length);
    const refused = after.lines.slice(before.lines.length);
    expect(refused).toMatchObject([
      {
        who: '(no such user)',
        action: 'sign-in refused',
        detail: { how: 'oidc', why: 'no such user', email: '***@example.com' },
      },
      {
        who: '(unknown)',
        action: 'sign-in refused',
        detail: { how: 'oidc', why: 'the e-mail address is not verified', email: '***@example.com' },
      },
      { who: 'Fay', action: 'sign-in refused', detail: { how: 'oidc', why: 'the user is disabled' } },
    ]);
    // Nothing of the person's e-mail but its domain.
    expect(JSON.stringify(refused)).not.toMatch(/cy@|dee@|fay@/);
  });

  it('refuses an answer whose state is not the one this browser started with', async () => {
    const flow = await throughProvider(url, 'ada');
    const forged = new URL(flow.callback);
    forged.searchParams.set('state', 'not-the-one-sent');
    const res = await flow.back(forged.href);
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('The sign-in came back with the answer to another: start the sign-in again.');
    expect(res.headers.getSetCookie().some((line) => line.startsWith('payer_onboard_session='))).toBe(false);
    expect(store().lines.at(-1)).toMatchObject({
      who: '(unknown)',
      action: 'sign-in refused',
      detail: { how: 'oidc', why: 'the state differs' },
    });
    // The flow's cookie went with that answer: the true one is refused too, and the code is never exchanged.
    expect((await flow.back()).status).toBe(400);
  });
});

describe('answers that sign no one in', () => {
  it('are slowed per address before they reach the audit trail', async () => {
    const before = store().lines.length;
    const statuses: number[] = [];
    while (statuses.length < 30 && statuses.at(-1) !== 429)
      statuses.push((await fetch(`${url}/login/oidc/callback?state=forged&code=forged`)).status);
    expect(statuses.at(-1)).toBe(429);
    // Twenty free since the last sign-in that came through (the earlier tests' refusals among them), then a wait.
    expect(statuses.length).toBeLessThanOrEqual(21);
    expect(new Set(statuses.slice(0, -1))).toEqual(new Set([400]));
    // The one slowed is refused unread: no line for it.
    expect(store().lines.length - before).toBe(statuses.length - 1);
  });
});

describe('an identity provider that does not answer at start', () => {
  it('serve starts with that sign-in off, says so in one line, and the password still signs in', async () => {
    const port = await freePort();
    const off = await serveHarness({
      serve: {
        webPassword: 'correct horse battery',
        publicUrl: `http://127.0.0.1:${port}`,
        // Nothing listens there: the port was free a moment ago.
        oidcIssuer: `http://127.0.0.1:${await freePort()}`,
        oidcClientId: OIDC_CLIENT_ID,
        oidcClientSecret: OIDC_CLIENT_SECRET,
        port,
      },
    });
    try {
      expect(off.stderr()).toMatch(
        /serve: sign-in with the identity provider is off until http:\/\/127\.0\.0\.1:\d+\/ answers \(ECONNREFUSED\); passwords still sign in, and each try of it looks again\n/,
      );
      const tried = await fetch(`${off.serve.url}/login/oidc`, { redirect: 'manual' });
      expect(tried.status).toBe(503);
      expect(await tried.text()).toContain('sign-in cannot be reached just now: sign in with your password');
      const signedIn = await fetch(`${off.serve.url}/login`, {
        method: 'POST',
        redirect: 'manual',
        body: new URLSearchParams({ password: 'correct horse battery' }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(signedIn.status).toBe(303);
    } finally {
      await off.close();
    }
  });
});
