import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/openStore.js';
import { linkTokenHash } from '../../src/store/SqlDirectory.js';
import type { Store } from '../../src/store/Store.js';
import { issueLink, PAYER_LINK_PATH } from '../../src/web/payerLinks.js';
import { tempDir } from '../helpers/tempDir.js';

let store: Store | undefined;
afterEach(async () => {
  await store?.close();
  store = undefined;
});

describe("a payer's personal link", () => {
  it('carries a token of 256 bits that the store knows only by its hash, valid for the days given', async () => {
    store = await openStore({ stateDir: tempDir().dir });
    const directory = store.directory('svc');
    const now = new Date('2026-12-01T10:00:00Z');
    const first = await issueLink(directory, 'p-1', { now, days: 30, publicUrl: 'https://payers.example.com/' });
    const second = await issueLink(directory, 'p-1', { now, days: 30, publicUrl: 'https://payers.example.com' });

    expect(first.url.startsWith(`https://payers.example.com${PAYER_LINK_PATH}`)).toBe(true);
    const token = first.url.slice(`https://payers.example.com${PAYER_LINK_PATH}`.length);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(second.url).not.toBe(first.url);
    expect(first.expiresAt).toBe('2026-12-31T10:00:00.000Z');
    const stored = await directory.link(linkTokenHash(token));
    expect(stored).toMatchObject({ clientUserId: 'p-1', expiresAt: '2026-12-31T10:00:00.000Z' });
    expect(JSON.stringify(stored)).not.toContain(token);
  });
});
