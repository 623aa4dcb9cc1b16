import type { PayerDirectoryTables } from '../store/Store.js';
import { newLinkToken } from '../store/SqlDirectory.js';

/** Where a payer's personal link leads on serve's public address: `/p/<token>`, exchanged at once for a cookie. */
export const PAYER_LINK_PATH = '/p/';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * A new personal link for a payer: a fresh token (the store keeps only its hash), valid `days` from `now`. Each mail
 * carries a new one; the earlier links stay valid until they expire or are revoked.
 */
export async function issueLink(
  directory: PayerDirectoryTables,
  clientUserId: string,
  { now, days, publicUrl }: { now: Date; days: number; publicUrl: string },
): Promise<{ url: string; expiresAt: string }> {
  const { token, tokenHash } = newLinkToken();
  const expiresAt = new Date(now.getTime() + days * DAY_MS).toISOString();
  await directory.addLink({ tokenHash, clientUserId, createdAt: now.toISOString(), expiresAt });
  return { url: `${publicUrl.replace(/\/+$/, '')}${PAYER_LINK_PATH}${token}`, expiresAt };
}
