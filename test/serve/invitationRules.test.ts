import { describe, expect, it } from 'vitest';
import { parseRemindAfter } from '../../src/options/serveOptions.js';
import {
  askInvitation,
  greetingName,
  linksRevoked,
  nothingToAsk,
  remindersOf,
} from '../../src/serve/invitationRules.js';
import type { MailRecord } from '../../src/store/Store.js';

// Who is mailed what: the rules serve's mail loop, its hook on runs and `invite` share.

const at = '2026-12-01T10:00:00.000Z';
const record = (state: MailRecord['state']): MailRecord => ({ clientUserId: 'p-1', step: 'invitation', state, at });
const entry = (updatedAt: string) => ({ clientUserId: 'p-1', email: 'p-1@example.com', updatedAt });

describe('whether an invitation may be asked for', () => {
  it('none yet: by anyone; due or being sent: not again unless asked again; sent: only --again', () => {
    const words = (state: MailRecord['state'] | undefined, asker: 'serve' | 'person' | 'again') => {
      const decided = askInvitation(state && record(state), entry(at), asker);
      return 'guard' in decided ? decided.guard.over.join(',') : decided.not;
    };
    expect(words(undefined, 'serve')).toBe('none');
    expect(words('due', 'person')).toBe('invitation to send (asked 2026-12-01 10:00)');
    expect(words('sending', 'person')).toBe('invitation being sent since 2026-12-01 10:00 (--again if it never came)');
    expect(words('sending', 'again')).toBe('sending');
    expect(words('sent', 'serve')).toBe('invited on 2026-12-01 10:00 (--again sends a new link)');
    expect(words('sent', 'person')).toBe('invited on 2026-12-01 10:00 (--again sends a new link)');
    expect(words('sent', 'again')).toBe('sent');
    expect(words('dropped', 'person')).toBe('dropped');
  });

  it('refused: a person may ask again; serve only once the address changed since (the row fixed and run again)', () => {
    const refused = { ...record('refused'), reason: '550 no such user' };
    expect(askInvitation(refused, entry(at), 'serve')).toEqual({
      not: 'e-mail refused on 2026-12-01 10:00, address unchanged since',
    });
    expect(askInvitation(refused, entry('2026-12-02T09:00:00.000Z'), 'serve')).toEqual({
      guard: { over: ['refused'] },
    });
    expect(askInvitation(refused, entry(at), 'person')).toEqual({ guard: { over: ['refused'] } });
  });
});

describe('who is mailed nothing', () => {
  it('a payer the journal does not know, refused by KYC, or done; a reminder once the latest link was revoked', () => {
    expect(nothingToAsk(undefined)).toBe('not registered with the service: run their row first');
    expect(nothingToAsk({ kycStatus: 'rejected' })).toBe('KYC rejected: contact them');
    expect(nothingToAsk({ kycStatus: 'approved', agreementStatus: 'completed' })).toBe(
      'nothing left to do: KYC approved, agreement completed',
    );
    expect(nothingToAsk({ isCompliant: true })).toBe('nothing left to do: KYC approved, agreement completed');
    expect(nothingToAsk({ kycStatus: 'approved', agreementStatus: 'pending' })).toBeUndefined();
    expect(nothingToAsk({ kycStatus: 'pending', agreementStatus: 'completed' })).toBeUndefined();
    const link = { tokenHash: 'h', clientUserId: 'p-1', createdAt: at, expiresAt: at };
    expect(linksRevoked([])).toBe(false);
    expect(linksRevoked([{ ...link, revokedAt: at }, link])).toBe(false);
    expect(linksRevoked([link, { ...link, revokedAt: at }])).toBe(true);
  });
});

describe('what a mail says and when', () => {
  it('greets a person by first name, a business without one by its name, else neutrally', () => {
    expect(greetingName({ clientUserId: 'p', firstName: 'Ada', companyName: 'Acme', updatedAt: at })).toBe('Ada');
    expect(greetingName({ clientUserId: 'p', companyName: 'Acme Ltd', updatedAt: at })).toBe('Acme Ltd');
    expect(greetingName({ clientUserId: 'p', updatedAt: at })).toBe('there');
  });

  it('reminders on their days after the invitation, fractions of a day allowed; --remind-after checked', () => {
    expect(remindersOf(new Date(at), [3, 7.5])).toEqual([
      { step: 'reminder-1', at: '2026-12-04T10:00:00.000Z' },
      { step: 'reminder-2', at: '2026-12-08T22:00:00.000Z' },
    ]);
    expect(parseRemindAfter('3,7')).toEqual([3, 7]);
    expect(parseRemindAfter(' 0.5 , 2 ')).toEqual([0.5, 2]);
    expect(parseRemindAfter('none')).toEqual([]);
    expect(() => parseRemindAfter('3,x')).toThrow(
      '--remind-after: write days after the invitation, comma-separated (3,7), or none',
    );
    expect(() => parseRemindAfter('0')).toThrow('--remind-after: write days');
    expect(() => parseRemindAfter('')).toThrow('--remind-after: write days');
    expect(() => parseRemindAfter('7,3')).toThrow('--remind-after: each reminder must come after the one before');
  });
});
