import { afterEach, describe, expect, it } from 'vitest';
import { API_KEY } from '../helpers/runHarness.js';
import { serveHarness } from '../helpers/serveHarness.js';
import { spawnBin } from '../helpers/spawnBin.js';
import { post, signInAs, welcome } from '../helpers/webSession.js';

const PASSWORD = 'correct horse battery';

let h: Awaited<ReturnType<typeof serveHarness>> | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** `payer-onboard users ...` against serve's store, as an operator runs it: its exit code and outputs. */
async function users(args: string[]) {
  const { tmp, sandbox } = h!;
  return spawnBin(['users', ...args, '--state-dir', tmp.path('state'), '--base-url', sandbox.url], {
    cwd: tmp.dir,
    env: { PAYER_API_KEY: API_KEY },
  }).done;
}

describe('named users and roles', () => {
  it('the first admin from the command line retires the shared password; each role does what it may', async () => {
    h = await serveHarness({ serve: { webPassword: PASSWORD } });
    const url = h.serve.url;
    const shared = await signInAs(url, { password: PASSWORD });

    const added = await users(['add', 'Ada Byron', '--role', 'admin', '--public-url', url]);
    expect(added.stderr).toContain('Ada Byron added as admin');
    expect(added.code).toBe(0);
    const link = added.stdout.trim();
    expect(link).toMatch(new RegExp(`^${url}/welcome/[\\w-]{43}$`));

    // The shared password's session ended; the password itself is refused in one sentence.
    expect((await fetch(`${url}/payers`, { headers: { cookie: shared.cookie }, redirect: 'manual' })).status).toBe(303);
    const refused = await fetch(`${url}/login`, {
      method: 'POST',
      body: new URLSearchParams({ password: PASSWORD }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(refused.status).toBe(401);
    expect(await refused.text()).toContain('The shared password no longer signs in');

    // The link sets the password once, and signs her in.
    const ada = await welcome(link, 'ada-long-password', '/');
    const start = await (await fetch(`${url}/`, { headers: { cookie: ada.cookie } })).text();
    expect(start).toContain('Ada Byron (admin)');
    expect((await fetch(link, { method: 'POST', body: 'password=x' })).status).not.toBe(303);
    const again = await fetch(link, {
      method: 'POST',
      redirect: 'manual',
      body: new URLSearchParams({ password: 'another-long-one', again: 'another-long-one' }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(again.status).toBe(400);
    expect(await again.text()).toContain('this link is used, expired or not valid');

    // A viewer: the Payers page, no upload, no sending.
    const viewerLink = (await users(['add', 'Vic', '--role', 'viewer', '--public-url', url])).stdout.trim();
    const vic = await welcome(viewerLink, 'vic-long-password');
    expect(
      (await fetch(`${url}/`, { headers: { cookie: vic.cookie }, redirect: 'manual' })).headers.get('location'),
    ).toBe('/payers');
    expect((await fetch(`${url}/payers`, { headers: { cookie: vic.cookie } })).status).toBe(200);
    const upload = await post(`${url}/uploads/nope/send`, vic);
    expect(upload.status).toBe(403);
    expect(await upload.text()).toContain('your role, viewer, cannot do this; it needs approver');

    // Disabled from the command line: her sessions end at once, and she signs in no more.
    const listed = await users(['list']);
    expect(listed.stdout).toContain('Vic\tviewer, active');
    expect((await users(['disable', 'Vic'])).code).toBe(0);
    expect((await fetch(`${url}/payers`, { headers: { cookie: vic.cookie }, redirect: 'manual' })).status).toBe(303);
    const wrong = await fetch(`${url}/login`, {
      method: 'POST',
      body: new URLSearchParams({ name: 'Vic', password: 'vic-long-password' }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(wrong.status).toBe(401);
  });

  it('serve with no shared password shows the page once the team has a user', async () => {
    h = await serveHarness({});
    expect((await fetch(`${h.serve.url}/login`)).status).toBe(404);
    const link = (await users(['add', 'Ada', '--role', 'admin', '--public-url', 'http://127.0.0.1:9'])).stdout.trim();
    const served = await h.restart();
    const ada = await welcome(`${served.url}${new URL(link).pathname}`, 'ada-long-password', '/');
    expect(ada.csrf).not.toBe('');
  });

  it('refuses a role that is none, a name taken, and a user who is not there', async () => {
    h = await serveHarness({});
    const url = 'http://127.0.0.1:9';
    expect((await users(['add', 'Ada', '--role', 'boss', '--public-url', url])).code).toBe(2);
    expect((await users(['add', 'Ada', '--role', 'admin', '--public-url', url])).code).toBe(0);
    const taken = await users(['add', 'ada', '--role', 'viewer', '--public-url', url]);
    expect(taken.code).toBe(2);
    expect(taken.stderr).toContain('there is a user named ada already');
    const none = await users(['disable', 'Bob']);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('there is no user named Bob');
  });
});
