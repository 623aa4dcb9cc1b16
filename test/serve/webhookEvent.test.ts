import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseEvent, signatureValid } from '../../src/serve/webhookEvent.js';

const body = Buffer.from('{"event":"compliance.updated","clientUserId":"p-1","kycStatus":"approved"}');
const hex = createHmac('sha256', 'secret').update(body).digest('hex');

describe('signatureValid', () => {
  it('takes the hex HMAC of the raw body, bare or as sha256=..., in either case', () => {
    expect(signatureValid(body, hex, 'secret')).toBe(true);
    expect(signatureValid(body, `sha256=${hex.toUpperCase()}`, 'secret')).toBe(true);
  });

  it('refuses another secret, another body, a short or missing or non-hex signature', () => {
    expect(signatureValid(body, hex, 'other')).toBe(false);
    expect(signatureValid(Buffer.from(`${body} `), hex, 'secret')).toBe(false);
    expect(signatureValid(body, hex.slice(0, 32), 'secret')).toBe(false);
    expect(signatureValid(body, undefined, 'secret')).toBe(false);
    expect(signatureValid(body, 'zz'.repeat(32), 'secret')).toBe(false);
  });
});

describe('parseEvent', () => {
  it('reads the ids and statuses at the top level or under data; the top level wins', () => {
    expect(parseEvent(body)).toEqual({
      event: { event: 'compliance.updated', clientUserId: 'p-1', kycStatus: 'approved' },
    });
    const nested = {
      event: 'payment_detail.updated',
      data: { clientUserId: 'p-2', paymentDetailId: 7, status: 'failed' },
    };
    expect(parseEvent(Buffer.from(JSON.stringify(nested)))).toEqual({
      event: { event: 'payment_detail.updated', clientUserId: 'p-2', paymentDetailId: '7', status: 'failed' },
    });
    const both = { event: 'compliance.updated', userId: 'u-top', data: { userId: 'u-data', kycStatus: 'pending' } };
    expect(parseEvent(Buffer.from(JSON.stringify(both)))).toEqual({
      event: { event: 'compliance.updated', userId: 'u-top', kycStatus: 'pending' },
    });
  });

  it("an account's event names its account by any of its names; another event's id is not an account", () => {
    const read = (body: object) => parseEvent(Buffer.from(JSON.stringify(body)));
    const shapes = [
      { paymentDetailsId: 'pd-r' },
      { paymentAccountId: 'pd-c' },
      { paymentDetailId: 'pd-o' },
      { id: 'pd-i' },
      { data: { paymentAccountId: 'pd-d' } },
      { paymentAccountId: 'pd-2nd', paymentDetailsId: 'pd-1st', id: 'pd-3rd' },
    ];
    expect(shapes.map((shape) => read({ event: 'payment_detail.updated', status: 'failed', ...shape }))).toEqual(
      ['pd-r', 'pd-c', 'pd-o', 'pd-i', 'pd-d', 'pd-1st'].map((paymentDetailId) => ({
        event: { event: 'payment_detail.updated', status: 'failed', paymentDetailId },
      })),
    );
    expect(read({ event: 'compliance.updated', id: 'evt-1', clientUserId: 'p-1', isCompliant: true })).toEqual({
      event: { event: 'compliance.updated', clientUserId: 'p-1' },
    });
  });

  it('a field of an unexpected type is left out, not a reason to refuse the event', () => {
    const odd = { event: 'compliance.updated', clientUserId: { nested: true }, kycStatus: 'approved' };
    expect(parseEvent(Buffer.from(JSON.stringify(odd)))).toEqual({
      event: { event: 'compliance.updated', kycStatus: 'approved' },
    });
  });

  it('no JSON, or no event name: a problem, said without the body', () => {
    expect(parseEvent(Buffer.from('ssn=123-45-6789'))).toEqual({ problem: 'the body is not JSON' });
    expect(parseEvent(Buffer.from('{"clientUserId":"p"}'))).toEqual({ problem: 'the body names no event' });
    expect(parseEvent(Buffer.from('[1,2]'))).toEqual({ problem: 'the body names no event' });
  });
});
