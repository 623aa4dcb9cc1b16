import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/openStore.js';
import type { Role, Store } from '../../src/store/Store.js';
import { maskValue } from '../../src/web/auditMask.js';
import { Audit } from '../../src/web/Audit.js';
import { FourEyes, fourEyesWords } from '../../src/web/fourEyes.js';
import { addUser, changeUser } from '../../src/web/teamUsers.js';
import type { Upload } from '../../src/web/Uploads.js';
import { tempDir } from '../helpers/tempDir.js';

// Where four eyes stands as the team is made, and who may approve an upload; how the audit trail keeps a cell's value.

let tmp: ReturnType<typeof tempDir>;
let store: Store;
let shared: boolean;
beforeEach(async () => {
  tmp = tempDir();
  store = await openStore({ stateDir: tmp.path('state') });
  shared = true;
});
afterEach(async () => {
  await store.close();
  tmp.remove();
});

const fourEyes = () => new FourEyes(store.journal('svc'), store.controls('svc'), async () => shared);
const actor = { who: 'os:test@host', address: 'host' };
async function user(name: string, role: Role) {
  const added = await addUser(store.controls('svc'), new Audit(store.controls('svc')), actor, { name, role });
  if ('problem' in added) throw new Error(added.problem);
  return added.user;
}

describe('four eyes as the team is', () => {
  it('the shared password alone is one approver: off; two approvers (an admin counts) turn it on; a disabled one does not count', async () => {
    expect(await fourEyes().stand()).toEqual({ on: false, approvers: 1 });
    shared = false;
    await user('Pat', 'preparer');
    await user('Ann', 'approver');
    expect(await fourEyes().stand()).toEqual({ on: false, approvers: 1 });
    const ada = await user('Ada', 'admin');
    expect(await fourEyes().stand()).toEqual({ on: true, approvers: 2 });
    await changeUser(store.controls('svc'), new Audit(store.controls('svc')), actor, ada, { disabled: true });
    expect(fourEyesWords(await fourEyes().stand())).toBe(
      'Four eyes: off — the team has one approver (it is on with two); a new bank account for a payer who has one still needs a second person',
    );
  });

  it("an admin's setting wins either way, and is written with its audit line", async () => {
    const line = new Audit(store.controls('svc')).line(actor, 'setting changed', 'web four eyes', { to: 'on' });
    await fourEyes().set('on', line);
    expect(await fourEyes().stand()).toEqual({ on: true, set: 'on', approvers: 1 });
    await fourEyes().set('off', line);
    await user('Ann', 'approver');
    await user('Bob', 'approver');
    expect(await fourEyes().stand()).toEqual({ on: false, set: 'off', approvers: 2 });
    expect(await store.controls('svc').auditCount({ action: 'setting changed' })).toBe(2);
  });

  it('who may approve: an approver who neither uploaded nor changed it; the uploader sends once an approval holds', async () => {
    shared = false;
    const ann = await user('Ann', 'approver');
    const bob = await user('Bob', 'approver');
    const cal = await user('Cal', 'approver');
    const upload: Upload = {
      ...{ id: 'abcdefghijkl', name: 'p.csv', size: 1, at: '2026-01-01T00:00:00.000Z' },
      by: { name: 'Ann', id: ann.id },
      mapped: [{ by: { name: 'Bob', id: bob.id }, at: '2026-01-01T00:01:00.000Z' }],
      newAccounts: { rows: [], total: 0 },
    };
    const as = (u: { id: string; name: string }) => ({ userId: u.id, name: u.name, role: 'approver' as const });
    const gate = (given: Upload, who: { id: string; name: string }) => fourEyes().gate(given, [], 'h1', as(who));
    expect((await gate(upload, ann)).may).toBe('involved');
    expect((await gate(upload, bob)).may).toBe('involved');
    expect(await gate(upload, cal)).toMatchObject({ may: 'approve', others: ['Cal'], needed: true });
    const approved = {
      ...upload,
      approval: { by: { name: 'Cal', id: cal.id }, at: '2026-01-01T00:02:00.000Z', hash: 'h1' },
    };
    expect((await gate(approved, ann)).may).toBe('send');
    // Changed after it: the approval no longer holds, and says who changed it.
    const later = [
      { line: 2, column: 'email', value: 'x', at: '2026-01-01T00:03:00.000Z', by: { name: 'Bob', id: bob.id } },
    ];
    const voided = await fourEyes().gate(approved, later, 'h2', as(ann));
    expect(voided).toMatchObject({ may: 'involved', approval: { holds: false, changedBy: ['Bob'] } });
  });
});

describe("a cell's value in the audit trail", () => {
  it('a bank number by its last 4, a plain field as written, anything personal masked whole', () => {
    expect(maskValue('accountNumber', '000123456789')).toBe('•••6789');
    expect(maskValue('iban', 'DE89 3704 0044 0532 0130 00')).toBe('•••3000');
    expect(maskValue('sortCode', '12-34-56')).toBe('•••');
    expect(maskValue('currency', 'USD')).toBe('USD');
    expect(maskValue('currency', 'ada@example.com')).toBe('•••');
    for (const [field, value] of [
      ['firstName', 'Ada'],
      ['email', 'ada@example.com'],
      ['dateOfBirth', '1985-12-10'],
      ['phone', '+12175550100'],
      ['city', 'Springfield'],
      ['ssn', '123-45-6789'],
      [undefined, 'anything'],
    ] as const)
      expect(maskValue(field, value)).toBe('•••');
    expect(maskValue('firstName', '  ')).toBe('');
  });
});
