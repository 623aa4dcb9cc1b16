import { createServer, type Server, request, Agent } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { clientKey } from '../../src/core/clientKey.js';
import { checkServeOptions } from '../../src/options/serveOptions.js';

const trustedProxies = (list: string | undefined) => checkServeOptions({ trustProxy: list }).trustProxy;
import { CONNECTIONS_PER_ADDRESS, type Limit, limitConnections } from '../../src/serve/clientLimits.js';
import { waitFor } from '../helpers/waitFor.js';

// The connection caps on a plain node:http server, spoken to over real sockets from loopback addresses of their own.

let server: Server | undefined;
const agents: Agent[] = [];
afterEach(async () => {
  for (const agent of agents.splice(0)) agent.destroy();
  const closing = server;
  server = undefined;
  if (closing === undefined) return;
  closing.closeAllConnections();
  await new Promise((resolve) => closing.close(resolve));
});

async function start(trustProxy?: string): Promise<{ url: string; refused: Limit[] }> {
  const refused: Limit[] = [];
  server = createServer({ keepAliveTimeout: 60_000 }, (_request, response) => response.end('ok'));
  limitConnections(server, trustedProxies(trustProxy), (limit) => refused.push(limit));
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, refused };
}

/** A GET over a connection of its own from `from`, kept alive afterwards by its agent: the status, or 0 if reset. */
function get(url: string, from: string): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  agents.push(agent);
  return new Promise((resolve, reject) => {
    const req = request(url, { agent, localAddress: from }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' ? resolve(0) : reject(error)));
    req.end();
  });
}

const openConnections = () => new Promise<number>((resolve) => server!.getConnections((_e, n) => resolve(n)));

describe('the connection caps', () => {
  it('an address at its cap with connections kept alive and idle: the longest idle is closed to make room', async () => {
    const { url, refused } = await start();
    for (let i = 0; i < CONNECTIONS_PER_ADDRESS; i++) expect(await get(url, '127.0.0.6')).toBe(200);
    expect(await openConnections()).toBe(CONNECTIONS_PER_ADDRESS);
    const first = Object.values(agents[0]!.freeSockets)[0]![0]!;
    const second = Object.values(agents[1]!.freeSockets)[0]![0]!;
    expect(await get(url, '127.0.0.6')).toBe(200);
    await waitFor(() => first.destroyed, 'the connection idle longest to be closed');
    expect(await openConnections()).toBe(CONNECTIONS_PER_ADDRESS);
    expect(second.destroyed).toBe(false);
    expect(refused).toEqual([]);
  });

  it('a proxy it trusts is not capped: its connections are all its clients’', async () => {
    const { url, refused } = await start('127.0.0.7');
    const statuses = await Promise.all(
      Array.from({ length: CONNECTIONS_PER_ADDRESS + 8 }, () => get(url, '127.0.0.7')),
    );
    expect(statuses).toEqual(statuses.map(() => 200));
    expect(refused).toEqual([]);
  });
});

describe('who counts as a client', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:db8:1:2::9', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002:ffff::1', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['64:ff9b:1:2:3::192.0.2.1', '64:ff9b:1:2::/64'],
  ])('%s counts as %s', (address, key) => {
    expect(clientKey(address)).toBe(key);
  });

  it('--trust-proxy takes addresses and CIDRs, and names what it cannot read', () => {
    const trusted = trustedProxies('10.0.0.5, 192.168.0.0/16,loopback')!;
    expect(['10.0.0.5', '192.168.4.4', '127.0.0.1', '::1'].map((a) => trusted(a, 0))).toEqual([true, true, true, true]);
    expect(trusted('10.0.0.6', 0)).toBe(false);
    expect(trustedProxies(undefined)).toBeUndefined();
    expect(() => trustedProxies('10.0.0.5,proxy.example.com')).toThrow(
      '--trust-proxy: invalid IP address: proxy.example.com: give IP addresses or CIDRs, comma-separated (10.0.0.5,10.0.0.0/24)',
    );
    expect(() => trustedProxies(' , ')).toThrow('--trust-proxy: name at least one IP address or CIDR');
  });
});
