import { describe, expect, it } from 'vitest';
import { Slots } from '../src/execute/Slots.js';

describe('Slots', () => {
  it('runs at most `size` tasks at once, the rest in the order they came', async () => {
    const slots = new Slots(2);
    const started: number[] = [];
    const finish: Array<() => void> = [];
    const tasks = [0, 1, 2, 3, 4].map((n) =>
      slots.run(async () => {
        started.push(n);
        await new Promise<void>((resolve) => finish.push(resolve));
        return n;
      }),
    );
    const settle = () => new Promise((resolve) => setImmediate(resolve));
    await settle();
    expect(started).toEqual([0, 1]);
    finish[1]!();
    await settle();
    expect(started).toEqual([0, 1, 2]);
    finish[0]!();
    finish[2]!();
    await settle();
    expect(started).toEqual([0, 1, 2, 3, 4]);
    finish[3]!();
    finish[4]!();
    expect(await Promise.all(tasks)).toEqual([0, 1, 2, 3, 4]);
  });

  it('gives the slot back when a task fails, and takes a free one without a promise', async () => {
    const slots = new Slots(1);
    await expect(slots.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(slots.take()).toBeUndefined();
    const waiting = slots.take();
    expect(waiting).toBeInstanceOf(Promise);
    slots.give();
    await waiting;
    slots.give();
    expect(slots.take()).toBeUndefined();
  });

  it('keeps no waiter that has had its turn, however long the queue never empties', async () => {
    const slots = new Slots(1);
    expect(slots.take()).toBeUndefined();
    let waiting = slots.take()!;
    for (let turn = 0; turn < 5000; turn++) {
      const next = slots.take()!;
      slots.give();
      await waiting;
      waiting = next;
    }
    const queue = (slots as unknown as { waiters: unknown[] }).waiters;
    expect(queue.length).toBeLessThan(2100);
  });
});
