import { describe, expect, it } from 'vitest';
import { auditQuery, auditViewOf, detailWords } from '../../src/web/auditView.js';

describe("the audit page's filters", () => {
  it('takes days in the time zone given, the last day whole, across a change of the clocks', () => {
    // New York's clocks went forward on 8 March 2026: that day is 23 hours long.
    expect(auditViewOf({ from: '2026-03-08', to: '2026-03-08', tz: 'America/New_York' }).filter).toEqual({
      from: '2026-03-08T05:00:00.000Z',
      to: '2026-03-09T04:00:00.000Z',
    });
    expect(auditViewOf({ from: '2026-07-01', tz: 'Asia/Kolkata' }).filter.from).toBe('2026-06-30T18:30:00.000Z');
    // No zone, or one that is none: UTC days.
    expect(auditViewOf({ to: '2026-12-31' }).filter.to).toBe('2027-01-01T00:00:00.000Z');
    expect(auditViewOf({ from: '2026-12-31', tz: 'Mars/Olympus' })).toMatchObject({
      filter: { from: '2026-12-31T00:00:00.000Z' },
      view: { tz: '' },
    });
  });

  it('says which day is none, and leaves that filter out', () => {
    const { view, filter, problems } = auditViewOf({ from: '2026-02-30', to: 'soon', who: ' Ada ', page: 'x' });
    expect(problems).toEqual(['From is not a day: give it as YYYY-MM-DD', 'To is not a day: give it as YYYY-MM-DD']);
    expect(filter).toEqual({ who: 'Ada' });
    expect(view).toMatchObject({ from: '', to: '', page: 1 });
  });

  it('keeps a view in its links: the filters given, the page after the first', () => {
    const { view } = auditViewOf({ who: 'Ada Byron', action: 'user added', tz: 'UTC', page: '3' });
    expect(auditQuery(view)).toBe('?who=Ada+Byron&action=user+added&tz=UTC&page=3');
    expect(auditQuery(view, 1)).toBe('?who=Ada+Byron&action=user+added&tz=UTC');
    expect(auditQuery(auditViewOf({}).view)).toBe('');
  });
});

describe("a line's details as a person reads them", () => {
  it('names each field in words, its value plainly', () => {
    expect(detailWords('{"name":"Bo","role":"viewer","email":false,"expiresAt":"2026-12-04T10:00:00.000Z"}')).toBe(
      'name: Bo · role: viewer · email: no · expires at: 2026-12-04T10:00:00.000Z',
    );
    expect(detailWords('{"rows":[1,2],"bank":{"old":"****6789","new":null}}')).toBe(
      'rows: 1, 2 · bank: (old: ****6789 · new: none)',
    );
    expect(detailWords('{}')).toBe('');
    expect(detailWords('not json')).toBe('not json');
    expect(detailWords('[1,2]')).toBe('[1,2]');
  });
});
