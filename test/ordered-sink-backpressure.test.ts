import { describe, expect, it } from 'vitest';
import { OrderedSink } from '../src/output/results.js';

describe('OrderedSink: a reader faster than the writer waits for the writes', () => {
  it('counts items handed on but not yet written, and whenUnwrittenAtMost waits for them', async () => {
    const releases: Array<() => void> = [];
    const sink = new OrderedSink<number>(() => new Promise<void>((resolve) => releases.push(resolve)));
    for (let i = 0; i < 5; i += 1) sink.complete(sink.reserve(), i);
    expect(sink.open).toBe(0); // all handed on ...
    expect(sink.unwritten).toBe(5); // ... none written yet
    let room = false;
    const waiting = sink.whenUnwrittenAtMost(2).then(() => (room = true));
    for (let i = 0; i < 2; i += 1) {
      await new Promise((r) => setImmediate(r));
      releases.shift()?.();
    }
    await new Promise((r) => setImmediate(r));
    expect(room).toBe(false);
    releases.shift()?.();
    await waiting;
    expect(sink.unwritten).toBe(2);
  });

  it('a failed write releases the waiters (the run then reads `error`)', async () => {
    const sink = new OrderedSink<number>(() => Promise.reject(new Error('disk full')));
    sink.complete(sink.reserve(), 1);
    sink.complete(sink.reserve(), 2);
    await sink.whenUnwrittenAtMost(0);
    expect(sink.error?.message).toBe('disk full');
    await expect(sink.flush()).rejects.toThrow('disk full');
  });
});
