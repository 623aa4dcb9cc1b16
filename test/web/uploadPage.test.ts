import { describe, expect, it } from 'vitest';
import { toText } from '../../src/core/html.js';
import { fixTitle } from '../../src/web/gridSection.js';
import type { SendGate } from '../../src/web/fourEyes.js';
import { checkFacts, checkWords, sendSection } from '../../src/web/pages.js';
import type { Upload } from '../../src/web/Uploads.js';

// The counts of an upload's page, worded as a person writes them: the page as served and web/fix.js's redraws both
// take these words from the server.
function upload(ok: number, invalid: number, payers: number, withBank: number): Upload {
  const check = { format: 'csv', rows: ok + invalid, ok, invalid, payers, withBank, warnings: [], problems: [] };
  return { id: 'abcdefghijkl', name: 'payers.csv', size: 1, at: '', check };
}
/** An approver of a team of one, where no approval is needed. */
const ALONE: SendGate = {
  ...{ stand: { on: false, approvers: 1 }, newAccounts: 0, needed: false, may: 'send' },
  ...{ others: [], approvers: ['shared password'] },
};
const said = (u: Upload) => ({
  send: toText(sendSection(u, 'tok', 'https://api.example.com', ALONE))
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim(),
  payers: /data-fact="payers">([^<]*)</.exec(toText(checkFacts(u)))?.[1],
  title: fixTitle(u),
  words: checkWords(u),
});

describe("an upload's counts", () => {
  it('one row, one payer: singular everywhere', () => {
    expect(said(upload(1, 1, 1, 1))).toEqual({
      send: 'Send 1 row: 1 payer, 1 with a bank account, to https://api.example.com . Send 1 row',
      payers: '1, with a bank account',
      title: 'Rows to fix (1)',
      words: '1 row ready to send, 1 to fix',
    });
  });

  it('several, and none left to fix', () => {
    expect(said(upload(6, 0, 6, 4))).toEqual({
      send: 'Send 6 rows: 6 payers, 4 with a bank account, to https://api.example.com . Send 6 rows',
      payers: '6, 4 of them with a bank account',
      title: 'Rows to fix: none left',
      words: '6 rows ready to send, none to fix',
    });
  });

  it('payers without bank accounts; nothing to send', () => {
    expect(said(upload(2, 3, 2, 0))).toMatchObject({
      send: 'Send 2 rows: 2 payers, none with a bank account, to https://api.example.com . Send 2 rows',
      payers: '2, none with a bank account',
    });
    expect(said(upload(0, 3, 0, 0))).toMatchObject({ send: 'No row can be sent as the file stands.', payers: '0' });
  });
});
