import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError, MAX_ANSWER_BYTES } from '../../src/core/apiError.js';
import { captureLogger, comply, testClient } from '../helpers/executeFixtures.js';
import { type ScriptedServer, startScriptedServer } from '../helpers/scriptedServer.js';

// An answer's body past 1 MB is cut off: got would otherwise hold all of it (48 answers of 50 MB took 2.7 GB).
const TWO_MB = 2 * 1024 * 1024;

let scripted: ScriptedServer | undefined;
let streaming: Server | undefined;
afterEach(async () => {
  await scripted?.close();
  scripted = undefined;
  streaming?.closeAllConnections();
  await new Promise((resolve) => (streaming ? streaming.close(resolve) : resolve(undefined)));
  streaming = undefined;
});

/** A server that streams a 2 MB JSON body in 64 KB chunks, with no content-length to warn of it. */
async function streamingServer(): Promise<string> {
  streaming = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json' });
    const chunk = ' '.repeat(64 * 1024);
    res.write('{"userId":"x"');
    let sent = 0;
    const more = () => {
      while (sent < TWO_MB) {
        sent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', more);
      }
      res.end('}');
    };
    more();
  });
  await new Promise<void>((resolve) => streaming!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(streaming.address() as AddressInfo).port}/api`;
}

function expectUnclear(result: Awaited<ReturnType<typeof comply>>) {
  expect(result.ok).toBe(false);
  const error = (result as { error: ApiError }).error;
  expect(error).toBeInstanceOf(ApiError);
  expect(error.kind).toBe('network');
  expect(error.networkCode).toBe('ERR_ANSWER_TOO_LARGE');
  expect(error.message).toBe('compliance: unclear answer: its body passed 1 MB and was cut off');
}

describe('an answer too large to read', () => {
  it('a 2 MB answer with its content-length: cut off, an unclear answer, the limit logged', async () => {
    scripted = await startScriptedServer(() => ({ status: 200, body: { userId: 'x', padding: 'p'.repeat(TWO_MB) } }));
    const log = captureLogger('info');
    const client = testClient(scripted.url, { logger: log.logger, retries: 0 });

    expectUnclear(await comply(client, 1));
    expect(log.text()).toContain(`"limitBytes":${MAX_ANSWER_BYTES}`);
    expect(log.text()).toContain('answer cut off: its body passed the 1 MB limit');
    // A create whose answer was lost may have stored the payer: it is never sent again blindly.
    expect(scripted.hits).toHaveLength(1);
  });

  it('a 2 MB answer streamed without a length: cut off the same way', async () => {
    const client = testClient(await streamingServer(), { retries: 0 });

    expectUnclear(await comply(client, 1));
  });
});
