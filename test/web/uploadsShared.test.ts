import { existsSync, mkdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { openStore } from '../../src/store/openStore.js';
import type { Store } from '../../src/store/Store.js';
import { Mappings } from '../../src/inbox/Mappings.js';
import { Uploads } from '../../src/web/Uploads.js';
import { payersCsv } from '../helpers/runHarness.js';
import { tempDir } from '../helpers/tempDir.js';
import { type TestStore, testStore } from '../helpers/testStore.js';

// The web page's uploads live in the store: a second serve over the same store (its own inbox and folders) goes on
// with an upload the first one took, and sends it from its own inbox.

let tmp: ReturnType<typeof tempDir>;
let backend: TestStore;
let store: Store;
beforeEach(async () => {
  tmp = tempDir();
  backend = await testStore(tmp.path('state'));
  store = await openStore({ stateDir: tmp.path('state'), databaseUrl: backend.env.PAYER_ONBOARD_DATABASE_URL });
});
afterEach(async () => {
  await store.close();
  await backend.close();
  tmp.remove();
});

/** A serve's uploads: its own folders, the shared store. */
function serveUploads(name: string): Uploads {
  const web = store.web('svc');
  const incoming = tmp.path(`${name}/incoming`);
  mkdirSync(incoming, { recursive: true });
  return new Uploads(tmp.path(`${name}/.web/uploads`), incoming, new Mappings(web), web);
}

const check = () => ({ input: {}, context: { cwd: tmp.dir, env: {} } });

async function uploaded(uploads: Uploads, text: string) {
  const { id, path } = uploads.create('payers.csv');
  writeFileSync(path, text);
  return uploads.accept(id, path, Buffer.byteLength(text), check().input, check().context);
}

it('one serve takes the file, another fixes it, the first sends it with the fix; the audit and the file are kept', async () => {
  const a = serveUploads('a');
  const b = serveUploads('b');
  const taken = await uploaded(a, payersCsv(['u-1', 'u-2'], { 'u-2': { email: 'nope' } }));
  expect(taken.check).toMatchObject({ ok: 1, invalid: 1 });

  const seen = await b.get(taken.id);
  expect(seen).toEqual(taken);
  const table = await b.table(seen!);
  expect(table?.rows.map((row) => row.line)).toEqual([2, 3]);
  // b's copy of the file, written from the store: readable by serve's user only.
  expect(statSync(tmp.path(`b/.web/uploads/${taken.id}/payers.csv`)).mode & 0o777).toBe(0o600);
  const email = table!.header.indexOf('email');
  expect(email).toBeGreaterThan(-1);
  const fix = { line: 3, column: 'email', value: 'u-2@example.com', at: new Date().toISOString() };
  const fixed = await b.fix(seen!, [fix], new Map(), check());
  expect(fixed.check).toMatchObject({ ok: 2, invalid: 0 });

  // a has no file of b's making: it writes it again from the upload and the changes, then sends it.
  const now = (await a.get(taken.id))!;
  expect(now.check).toMatchObject({ ok: 2 });
  expect(await a.fixes(now)).toEqual([fix]);
  const sent = await a.send(now, check());
  expect(sent).toMatchObject({ upload: { sentAs: 'payers.csv' }, sentHere: true });
  expect(readFileSync(tmp.path('a/incoming/payers.csv'), 'utf8')).toContain('u-2@example.com');
  expect((await b.get(taken.id))?.sentAs).toBe('payers.csv');
  // Sent once: b sends nothing more.
  expect((await b.send((await b.get(taken.id))!, check())).sentHere).toBe(false);
  expect(existsSync(tmp.path('b/incoming/payers.csv'))).toBe(false);
  // The upload as it came and the changes stay for the audit (a fixed file is not what was uploaded).
  expect(await store.web('svc').uploadContent(taken.id)).toBeDefined();
});

it('a file sent as it came is kept once, in the inbox; old uploads go from the store and every folder', async () => {
  const a = serveUploads('a');
  const b = serveUploads('b');
  const plain = await uploaded(a, payersCsv(['p-1']));
  await b.send(plain, check());
  expect(readFileSync(tmp.path('b/incoming/payers.csv'), 'utf8')).toContain('p-1');
  expect(await store.web('svc').uploadContent(plain.id)).toBeUndefined();
  expect(await b.table((await b.get(plain.id))!)).toBeUndefined();

  const old = await uploaded(b, payersCsv(['o-1']));
  // A week and a day later, as a's folder and the store see it.
  const later = Date.now() + 8 * 24 * 3_600_000;
  await a.prune(7 * 24 * 3_600_000, later);
  expect(await a.get(old.id)).toBeUndefined();
  expect(await a.get(plain.id)).toBeUndefined();
  expect(existsSync(tmp.path(`a/.web/uploads/${plain.id}`))).toBe(false);
  // b's folder still holds its copy of an upload the store no longer has: its own prune removes it, however new.
  const folder = tmp.path(`b/.web/uploads/${old.id}`);
  expect(existsSync(folder)).toBe(true);
  utimesSync(folder, new Date(), new Date());
  await b.prune(7 * 24 * 3_600_000);
  expect(existsSync(folder)).toBe(false);
});

it('two serves asked to send one upload at once: one sends it, into its own inbox, and only it says it sent it', async () => {
  const a = serveUploads('a');
  const b = serveUploads('b');
  const taken = await uploaded(a, payersCsv(['s-1']));
  const seen = (await b.get(taken.id))!;
  const answers = await Promise.all([a.send(taken, check()), b.send(seen, check())]);
  const sentTo = ['a', 'b'].filter((name) => existsSync(tmp.path(`${name}/incoming/payers.csv`)));
  expect(sentTo).toHaveLength(1);
  expect(answers.map((answer) => answer.sentHere)).toEqual([sentTo[0] === 'a', sentTo[0] === 'b']);
  expect((await a.get(taken.id))?.sentAs).toBe('payers.csv');
  // The one that lost, asked once the other had sent it (its upload as it saw it before), says it did not send it.
  const late = await uploaded(a, payersCsv(['s-2']));
  const before = (await b.get(late.id))!;
  const won = await a.send(late, check());
  expect(won.sentHere).toBe(true);
  expect(await b.send(before, check())).toMatchObject({ upload: { sentAs: won.upload.sentAs }, sentHere: false });
  // What b saw before, saved after the send (an approval given as it was sent): the upload is still sent.
  await b.approve(before, { name: 'Bob' }, await b.hash(before));
  expect((await a.get(late.id))?.sentAs).toBe(won.upload.sentAs);
});
