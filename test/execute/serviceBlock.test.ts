import { describe, expect, it } from 'vitest';
import { type BlockNews, ServiceBlock } from '../../src/execute/ServiceBlock.js';
import { systemClock } from '../../src/execute/RateLimiter.js';

// The block watch on its own: when nothing but 429s is a block, one probe at a time, and at the deadline one last
// probe before giving up (never giving up at the moment of a probe it promised).

function watch(timing = { afterMs: 0, probeEveryMs: 40, maxWaitMs: 100 }) {
  const news: BlockNews[] = [];
  const stops: string[] = [];
  const block = new ServiceBlock(
    timing,
    systemClock,
    (n) => news.push(n),
    (m) => stops.push(m),
  );
  return { block, news, stops };
}

describe('the service block watch', () => {
  it('a 429 after others answered is no block; nothing but 429s for the time is; anything else ends it', () => {
    const { block, news } = watch({ afterMs: 60_000, probeEveryMs: 40, maxWaitMs: 100 });
    block.answered(429, false);
    block.answered(200, false);
    block.answered(429, false);
    expect(block.blocked).toBe(false);
    const quick = watch();
    quick.block.answered(429, false);
    expect(quick.block.blocked).toBe(true);
    expect(quick.news).toEqual([{ kind: 'blocked', probes: 0, nextProbeInMs: 40, givesUpInMs: 100 }]);
    quick.block.answered(201, false);
    expect(quick.block.blocked).toBe(false);
    expect(quick.news.at(-1)).toMatchObject({ kind: 'lifted' });
    expect(news).toEqual([]);
  });

  it('one probe at a time; the others wait for its answer', async () => {
    const { block } = watch({ afterMs: 0, probeEveryMs: 20, maxWaitMs: 60_000 });
    block.answered(429, false);
    const signal = new AbortController().signal;
    const turns = [block.turn(signal), block.turn(signal), block.turn(signal)];
    const first = await Promise.race(turns);
    expect(first).toBe(true);
    // The probe answered: the block is over and everyone goes, none of them a probe.
    block.answered(200, true);
    expect((await Promise.all(turns)).filter(Boolean)).toHaveLength(1);
    block.close();
  });

  it('at the deadline a last probe goes out; its 429 stops the client, once', async () => {
    const { block, stops } = watch({ afterMs: 0, probeEveryMs: 10_000, maxWaitMs: 50 });
    block.answered(429, false);
    const signal = new AbortController().signal;
    // The next probe is due in 10 s, after the deadline: the deadline brings it forward.
    expect(await block.turn(signal)).toBe(true);
    expect(stops).toEqual([]);
    block.answered(429, true);
    expect(stops).toEqual([
      'stopped: the service blocked this key and address for longer than --max-block-wait (0 s); the rows not sent are pending: run them again later',
    ]);
    block.close();
  });
});
