import { isIPv6 } from 'node:net';

/**
 * Who an address counts as: an IPv4 address (also written IPv4-mapped, `::ffff:10.0.0.1`) is itself; an IPv6 address
 * counts by its /64, the block one host or one home is given, so that a client cannot be many by changing its last bits.
 */
export function clientKey(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (!isIPv6(address)) return address;
  const [head = '', tail = ''] = address.toLowerCase().split('::');
  const front = head === '' ? [] : head.split(':');
  const back = tail === '' ? [] : tail.split(':');
  // A dotted IPv4 tail (`64:ff9b::192.0.2.1`) stands for two groups.
  const width = front.length + back.reduce((n, part) => n + (part.includes('.') ? 2 : 1), 0);
  const groups = address.includes('::') ? [...front, ...Array<string>(8 - width).fill('0'), ...back] : front;
  return `${groups
    .slice(0, 4)
    .map((group) => Number.parseInt(group, 16).toString(16))
    .join(':')}::/64`;
}
