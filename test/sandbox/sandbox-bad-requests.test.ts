import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { call, closeSandboxes, createPayer, KEY, payer, paymentDetail, start } from '../helpers/sandboxHelpers.js';

afterEach(closeSandboxes);

const SECRETS = {
  ssn: '987-65-4321',
  accountNumber: '5550001111',
  iban: 'DE89370400440532013000',
  routingNumber: '021000021',
  documentNumber: 'X1234567',
};

describe('sandbox validation (400, NestJS shape, messages naming the field)', () => {
  it('lists every problem of a compliance body, class-validator style', async () => {
    const sandbox = await start();
    const body = payer({
      email: 'not-an-email',
      country: 'USA',
      beneficiaryType: 'person',
      phone: '217-555-0100',
      dateOfBirth: '31/12/1980',
      firstName: '',
    });
    delete body.lastName;
    const reply = await call(sandbox, 'POST', '/v1/payer', { body });
    expect(reply.status).toBe(400);
    expect(reply.body.statusCode).toBe(400);
    expect(reply.body.error).toBe('Bad Request');
    expect(reply.body.message).toEqual([
      'email must be a valid e-mail address',
      'firstName must not be empty',
      'lastName must be provided',
      'beneficiaryType must be one of the following values: individual, business',
      'dateOfBirth must be YYYY-MM-DD',
      'country must be exactly 2 characters',
      'phone must be in E.164 format, e.g. +12175550100',
    ]);
    expect(sandbox.payer('payer-1')).toBeUndefined();
  });

  it("--error-shape problems: the same problems as {code, message, path}, as the service's other v2 operations answer", async () => {
    const sandbox = await start({ errorShape: 'problems' });
    const body = payer({ email: 'not-an-email', country: 'USA' });
    delete body.lastName;
    const reply = await call(sandbox, 'POST', '/v2/payer', { body });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({
      statusCode: 400,
      error: 'Bad Request',
      message: [
        { code: 'invalid_format', message: 'must be a valid e-mail address', path: ['email'] },
        { code: 'invalid_type', message: 'must be provided', path: ['lastName'] },
        { code: 'too_big', message: 'must be exactly 2 characters', path: ['country'] },
      ],
    });
    expect(sandbox.payer('payer-1')).toBeUndefined();
  });

  it('payment details: enum, length and type problems', async () => {
    const sandbox = await start();
    await createPayer(sandbox);
    const reply = await call(sandbox, 'POST', '/v2/payer/payer-1/payment-details', {
      body: paymentDetail({ currency: 'US', rails: 'ach', accountType: 'current', bankName: 42 }),
    });
    expect(reply.status).toBe(400);
    expect(reply.body.message).toEqual([
      'bankName must be a string',
      'currency must be exactly 3 characters',
      'rails must be one of the following values: local, swift, wire',
      'accountType must be one of the following values: checking, savings',
    ]);
    expect(sandbox.stats().paymentDetailsCreated).toBe(0);
  });

  it('agreement: missing and non-boolean agreementCompleted', async () => {
    const sandbox = await start();
    await createPayer(sandbox);
    const missing = await call(sandbox, 'PATCH', '/v2/payer/payer-1', { body: {} });
    expect(missing.body).toEqual({
      statusCode: 400,
      message: ['agreementCompleted must be provided'],
      error: 'Bad Request',
    });
    const empty = await call(sandbox, 'PATCH', '/v2/payer/payer-1', {});
    expect(empty.body).toEqual(missing.body);
    const text = await call(sandbox, 'PATCH', '/v2/payer/payer-1', { body: { agreementCompleted: 'yes' } });
    expect(text.body.message).toEqual(['agreementCompleted must be a boolean value']);
  });

  it('a body that is not an object is 400', async () => {
    const sandbox = await start();
    const reply = await call(sandbox, 'POST', '/v1/payer', { body: '[1,2]' });
    expect(reply.status).toBe(400);
    expect(reply.body.message).toEqual(['request body must be a JSON object']);
  });

  it('never echoes ssn, accountNumber, iban, routingNumber or documentNumber values', async () => {
    const sandbox = await start();
    await createPayer(sandbox);
    const badPayer = await call(sandbox, 'POST', '/v1/payer', {
      body: payer({ clientUserId: 'p2', ssn: 12345, email: SECRETS.ssn }),
    });
    const badDetail = await call(sandbox, 'POST', '/v2/payer/payer-1/payment-details', {
      body: paymentDetail({
        ...SECRETS,
        ssn: undefined,
        currency: SECRETS.iban,
        country: SECRETS.accountNumber,
        bankName: '',
      }),
    });
    const malformed = await call(sandbox, 'POST', '/v1/payer', {
      body: `{"ssn": "${SECRETS.ssn}", "iban": "${SECRETS.iban}`,
    });
    for (const reply of [badPayer, badDetail, malformed]) {
      expect(reply.status).toBe(400);
      for (const secret of Object.values(SECRETS)) expect(reply.text).not.toContain(secret);
    }
  });
});

describe('sandbox: other bad requests get a clear 4xx and the server keeps serving', () => {
  it('malformed JSON is 400 with a fixed message', async () => {
    const sandbox = await start();
    const reply = await call(sandbox, 'POST', '/v1/payer', { body: '{"clientUserId": ' });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ statusCode: 400, message: 'Malformed JSON in request body', error: 'Bad Request' });
  });

  it('a body that is not JSON by content type is 415; +json types and charset are fine', async () => {
    const sandbox = await start();
    const wrong = await call(sandbox, 'POST', '/v1/payer', {
      body: JSON.stringify(payer()),
      headers: { 'x-api-key': KEY, 'content-type': 'text/plain' },
    });
    expect(wrong.status).toBe(415);
    expect(wrong.body).toEqual({
      statusCode: 415,
      message: 'Content-Type must be application/json',
      error: 'Unsupported Media Type',
    });
    const form = await call(sandbox, 'POST', '/v1/payer', {
      body: 'a=1',
      headers: { 'x-api-key': KEY, 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).toBe(415);
    const charset = await call(sandbox, 'POST', '/v1/payer', {
      body: payer(),
      headers: { 'x-api-key': KEY, 'content-type': 'application/json; charset=utf-8' },
    });
    expect(charset.status).toBe(200);
  });

  it('an unknown path is 404 "Cannot METHOD path"', async () => {
    const sandbox = await start();
    const reply = await call(sandbox, 'POST', '/v3/payer?x=1', { body: payer() });
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual({ statusCode: 404, message: 'Cannot POST /v3/payer', error: 'Not Found' });
  });

  it.each([
    ['GET', '/v1/payer'],
    ['PUT', '/v1/payer'],
    ['DELETE', '/v2/payer/payer-1'],
    ['PUT', '/v2/payer/payer-1/payment-details'],
    ['GET', '/v2/payer'],
    ['PATCH', '/v1/payer/payer-1'],
  ])('a wrong method (%s %s) is 404 as NestJS answers it', async (method, path) => {
    const sandbox = await start();
    const reply = await call(sandbox, method, path, method === 'GET' ? {} : { body: {} });
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual({ statusCode: 404, message: `Cannot ${method} ${path}`, error: 'Not Found' });
  });

  it('a body over 1 MB is 413, and the next request is served', async () => {
    const sandbox = await start();
    const big = JSON.stringify(payer({ companyName: 'x'.repeat(1024 * 1024) }));
    const reply = await call(sandbox, 'POST', '/v1/payer', { body: big });
    expect(reply.status).toBe(413);
    expect(reply.body).toEqual({
      statusCode: 413,
      message: 'Request body is larger than 1048576 bytes',
      error: 'Payload Too Large',
    });
    expect(sandbox.payer('payer-1')).toBeUndefined();
    expect((await createPayer(sandbox)).status).toBe(200);
  });

  it('the size limit is an option', async () => {
    const sandbox = await start({ maxBodyBytes: 100 });
    expect((await createPayer(sandbox)).status).toBe(413);
  });

  it('a clientUserId that is not valid percent-encoding is 400', async () => {
    const sandbox = await start();
    const reply = await call(sandbox, 'PATCH', '/v2/payer/%E0%A4%A', { body: { agreementCompleted: true } });
    expect(reply.status).toBe(400);
    expect(reply.body.error).toBe('Bad Request');
  });

  it('garbage instead of HTTP gets 400 and the connection closed, then the server still answers', async () => {
    const sandbox = await start();
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(sandbox.port, '127.0.0.1', () => socket.write('NOT HTTP AT ALL\r\n\r\n'));
      let data = '';
      socket.on('data', (chunk) => {
        data += chunk.toString();
      });
      socket.on('end', () => resolve(data));
      socket.on('error', reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect((await createPayer(sandbox)).status).toBe(200);
  });
});
