import { describe, expect, it } from 'vitest';
import { OrderedSink } from '../../src/output/results.js';
import { deferred } from '../helpers/waitFor.js';

describe('OrderedSink: a reader faster than the writer waits for the writes', () => {
  it('counts items handed on but not yet written, and whenUnwrittenAtMost waits for them', async () => {
    // Each write lasts until the test finishes it; `writeStarted` resolves as soon as the next write begins.
    let finishWrite: () => void = () => {};
    let writeStarted = deferred();
    const sink = new OrderedSink<number>(
      () =>
        new Promise<void>((resolve) => {
          finishWrite = resolve;
          writeStarted.resolve();
        }),
    );
    const nextWrite = async () => {
      await writeStarted.promise;
      writeStarted = deferred();
    };
    for (let i = 0; i < 5; i += 1) sink.complete(sink.reserve(), i);
    expect(sink.open).toBe(0); // all handed on ...
    expect(sink.unwritten).toBe(5); // ... none written yet
    let room = false;
    const waiting = sink.whenUnwrittenAtMost(2).then(() => (room = true));
    for (let i = 0; i < 2; i += 1) {
      await nextWrite();
      finishWrite();
    }
    // The third write starting means the second has been counted: 3 unwritten, still too many.
    await nextWrite();
    expect(sink.unwritten).toBe(3);
    expect(room).toBe(false);
    finishWrite();
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
