import { mkdirSync, rmdirSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { STORE_FILE } from '../../src/store/SqliteStore.js';
import { payersCsv } from '../helpers/runHarness.js';
import { serveHarness } from '../helpers/serveHarness.js';
import { auditIn } from '../helpers/storeOnDisk.js';
import { addUser, pageAs, uploadAs } from '../helpers/team.js';
import { waitFor } from '../helpers/waitFor.js';
import { post, signInAs, type WebSession, welcome } from '../helpers/webSession.js';

// Four eyes over HTTP against serve and the sandbox: an approval covers exactly what is sent (a change after it voids
// it), and a new bank account for a payer who has one waits for an approver other than the uploader, whatever the
// setting.

const PASSWORD = 'correct horse battery';

let h: Awaited<ReturnType<typeof serveHarness>> | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** A team of named users, each signed in through their one-time link. */
async function team<Name extends string>(people: Array<[Name, string]>): Promise<Record<Name, WebSession>> {
  const where = { stateDir: h!.tmp.path('state'), baseUrl: h!.sandbox.url, publicUrl: h!.serve.url, cwd: h!.tmp.dir };
  const signed = {} as Record<Name, WebSession>;
  for (const [name, role] of people)
    signed[name] = await welcome(await addUser(where, name, role), `${name}-long-password`, '/');
  return signed;
}

/** The hidden hash of the approver's form: the content the page showed. */
const hashOf = (page: string) => /name="hash" value="([0-9a-f]{64})"/.exec(page)?.[1] ?? '';

/** Once the inbox has run a sent upload: its page says it finished. */
const run = (url: string, session: WebSession, id: string) =>
  waitFor(async () => (await pageAs(url, session, `/sent/${id}/fragment`)).includes('id="finished"'), 'the run');

describe('four eyes', () => {
  it("a send's line is written before the file goes: one that could not go is answered by 'send failed'", async () => {
    h = await serveHarness({ serve: { webPassword: PASSWORD } });
    const url = h.serve.url;
    const admin = await signInAs(url, { password: PASSWORD }, '/');
    const id = await uploadAs(url, admin, 'payers.csv', payersCsv(['f-1']));
    // The inbox cannot take the file: where serve writes it before its rename is a folder.
    mkdirSync(join(h.inbox.root, 'incoming', `.${id}.part`));
    expect((await post(`${url}/uploads/${id}/send`, admin)).status).toBe(500);
    const lines = () => auditIn(h!.tmp.path('state')).filter((line) => line.subject === id);
    expect(lines().map((line) => line.action)).toEqual(['upload', 'sent', 'send failed']);
    // Sent once it can go: the page's send is whole again.
    rmdirSync(join(h.inbox.root, 'incoming', `.${id}.part`));
    expect((await post(`${url}/uploads/${id}/send`, admin)).status).toBe(303);
    expect(lines().map((line) => line.action)).toEqual(['upload', 'sent', 'send failed', 'sent']);
  });

  it('a change after an approval voids it: the uploader cannot send until it is approved again', async () => {
    h = await serveHarness({ serve: { webPassword: PASSWORD } });
    const url = h.serve.url;
    const { Ann, Bob, Pat } = await team([
      ['Ann', 'approver'],
      ['Bob', 'approver'],
      ['Pat', 'preparer'],
    ]);
    expect(await pageAs(url, Ann, '/')).toContain('Four eyes: on — every upload is approved by a second person');

    const id = await uploadAs(url, Ann, 'monday.csv', payersCsv(['v-1', 'v-2']));
    const ownPage = await pageAs(url, Ann, `/uploads/${id}`);
    expect(ownPage).toContain('You uploaded or changed this upload, so another approver approves it');
    expect(ownPage).toContain(': Bob.');
    expect((await post(`${url}/uploads/${id}/send`, Ann)).status).toBe(403);

    // Bob looks and approves only; Pat then changes a cell: the approval no longer holds.
    const seen = hashOf(await pageAs(url, Bob, `/uploads/${id}/review`));
    expect((await post(`${url}/uploads/${id}/approve`, Bob, { hash: seen })).status).toBe(303);
    expect(await pageAs(url, Ann, `/uploads/${id}`)).toContain('Approved by Bob');
    const cell = JSON.stringify({ line: 2, cells: { '2': 'Adah' }, out: false });
    const fixed = await fetch(`${url}/uploads/${id}/rows`, {
      method: 'POST',
      body: cell,
      headers: { 'content-type': 'application/json', 'x-csrf-token': Pat.csrf, cookie: Pat.cookie },
    });
    expect(fixed.status).toBe(200);
    expect(((await fixed.json()) as { page: { send: string } }).page.send).toContain('no longer holds');
    const after = await pageAs(url, Ann, `/uploads/${id}`);
    expect(after).toContain('The approval by Bob');
    expect(after).toContain('no longer holds: Pat changed the upload after it');
    const refused = await post(`${url}/uploads/${id}/send`, Ann);
    expect(refused.status).toBe(403);
    // An approval posted from the page as it was before the change covers nothing.
    const stale = await post(`${url}/uploads/${id}/send`, Bob, { approve: '1', hash: seen });
    expect(stale.status).toBe(409);
    expect(await stale.text()).toContain('the upload changed since you looked at it');

    // Bob approves what it is now; Ann, who uploaded it, sends it.
    const now = hashOf(await pageAs(url, Bob, `/uploads/${id}/review`));
    expect(now).not.toBe(seen);
    expect((await post(`${url}/uploads/${id}/approve`, Bob, { hash: now })).status).toBe(303);
    expect((await post(`${url}/uploads/${id}/send`, Ann)).status).toBe(303);
    expect(await pageAs(url, Ann, `/uploads/${id}`)).toContain('Sent to the inbox as monday.csv');

    const trail = auditIn(h.tmp.path('state')).filter((line) => line.subject === id);
    expect(trail.map((line) => [line.who, line.action])).toEqual([
      ['Ann', 'upload'],
      ['Bob', 'bank details viewed'],
      ['Bob', 'approved'],
      ['Pat', 'cell changed'],
      ['Bob', 'bank details viewed'],
      ['Bob', 'approved'],
      ['Ann', 'sent'],
    ]);
    expect(trail[3]!.detail).toEqual({ line: 2, column: 'firstName', field: 'firstName', old: '•••', new: '•••' });
    expect(trail[2]!.detail.hash).toBe(seen);
    expect(trail[6]!.detail).toMatchObject({ file: 'monday.csv', hash: now, approvedBy: 'Bob' });
  });

  it('a second bank account for a payer who has one waits for an approver other than the uploader, with four eyes off', async () => {
    h = await serveHarness({ serve: { webPassword: PASSWORD }, sandbox: { kycAfter: 0 } });
    const url = h.serve.url;
    const { Ada, Bob } = await team([
      ['Ada', 'admin'],
      ['Bob', 'approver'],
    ]);
    // The setting is the admin's: an approver can neither see nor change it.
    expect((await post(`${url}/admin/settings`, Bob, { fourEyes: 'off' })).status).toBe(403);
    expect(await pageAs(url, Ada, '/admin/settings')).toMatch(/value="team" checked/);
    expect((await post(`${url}/admin/settings`, Ada, { fourEyes: 'off' })).status).toBe(303);
    expect(await pageAs(url, Ada, '/admin/settings')).toMatch(/value="off" checked/);
    expect(await pageAs(url, Bob, '/')).toContain('Four eyes: off (an admin turned it off)');

    // Her first account: sent by Ada alone, and run: the journal knows it.
    const first = await uploadAs(url, Ada, 'first.csv', payersCsv(['k-1']));
    expect((await post(`${url}/uploads/${first}/send`, Ada)).status).toBe(303);
    await run(url, Ada, first);

    const second = await uploadAs(
      url,
      Ada,
      'second.csv',
      payersCsv(['k-1'], { 'k-1': { accountNumber: '000987654321' } }),
    );
    const page = await pageAs(url, Ada, `/uploads/${second}`);
    expect(page).toContain('A new bank account for a payer who already has one');
    expect(page).toContain('line 2: k-1');
    const refused = await post(`${url}/uploads/${second}/send`, Ada);
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain('you uploaded or changed this upload');

    // Bob sees the account in full, approves and sends it.
    const review = await pageAs(url, Bob, `/uploads/${second}/review`);
    expect(review).toContain('000987654321');
    expect(review).toContain('new account');
    const sent = await post(`${url}/uploads/${second}/send`, Bob, { approve: '1', hash: hashOf(review) });
    expect(sent.status).toBe(303);
    await run(url, Bob, second);

    const trail = auditIn(h.tmp.path('state'));
    expect(trail.find((line) => line.action === 'setting changed')).toMatchObject({
      who: 'Ada',
      subject: 'web four eyes',
      detail: { from: 'team', to: 'off' },
    });
    expect(
      trail.filter((line) => line.subject === second).map((line) => [line.who, line.action, line.detail.newAccounts]),
    ).toEqual([
      ['Ada', 'upload', undefined],
      ['Bob', 'bank details viewed', undefined],
      ['Bob', 'approved', 1],
      ['Bob', 'sent', undefined],
    ]);
    // Nothing of the account in the trail.
    expect(JSON.stringify(trail)).not.toContain('987654321');
  });

  it('an upload kept with no word of its bank accounts: its page compares them, and the one admin sends it', async () => {
    h = await serveHarness({ serve: { webPassword: PASSWORD } });
    const admin = await signInAs(h.serve.url, { password: PASSWORD }, '/');
    const id = await uploadAs(h.serve.url, admin, 'kept.csv', payersCsv(['w-1']));
    // As a serve of a version that compared no accounts left it.
    await h.serve.close();
    const db = new DatabaseSync(join(h.tmp.path('state'), STORE_FILE));
    db.prepare("UPDATE web_uploads SET upload = json_remove(upload, '$.newAccounts')").run();
    db.close();
    const url = (await h.restart()).url;
    const page = await pageAs(url, admin, `/uploads/${id}`);
    expect(page).not.toContain('could not compare its bank accounts');
    expect(page).toContain(`action="/uploads/${id}/send"`);
    expect((await post(`${url}/uploads/${id}/send`, admin)).status).toBe(303);
    expect(await pageAs(url, admin, `/uploads/${id}`)).toContain('Sent to the inbox as kept.csv');
  });
});
