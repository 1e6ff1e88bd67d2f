// Listeners are held by an eventemitter3 emitter, used through its public API only, and run by one
// plain function over what its `listeners(event)` returns (as octokit's receive settles its
// handlers): every listener runs, failures are collected, and nothing is read from the emitter's
// internals.
import { describe, expect, it } from 'vitest';
import { type Emitter, emitterOf, Listeners } from '../../src/internal/listeners.js';
import { settleListeners } from '../../src/internal/settle-listeners.js';

type Events = { ping: (n: number) => unknown; other: () => void };

/** An object with listener methods, holding its emitter as WebhookHandler and DeliveryTracker do. */
class Owner extends Listeners<Events> {
  constructor(readonly emitter: Emitter = emitterOf()) {
    super(emitter);
  }
  run(event: keyof Events, ...args: unknown[]): Promise<unknown[]> {
    return settleListeners(this.emitter.listeners(event), ...args);
  }
}

describe('settleListeners', () => {
  it('runs every listener in order, each with its context; collects a throw and a rejection without stopping the rest', async () => {
    const owner = new Owner();
    const seen: string[] = [];
    const context = { name: 'ctx' };
    owner.on('ping', () => void seen.push('first'));
    owner.on('ping', () => {
      throw new Error('sync');
    });
    owner.on('ping', async () => Promise.reject(new Error('async')));
    owner.on(
      'ping',
      function (this: typeof context, n: number) {
        seen.push(`${this.name}:${n}`);
      },
      context,
    );
    const failures = await owner.run('ping', 7);
    expect(seen).toEqual(['first', 'ctx:7']);
    expect(failures.map((e) => (e as Error).message)).toEqual(['sync', 'async']);
  });

  it('a once listener runs once; a listener added during a run waits for the next run', async () => {
    const owner = new Owner();
    const seen: string[] = [];
    owner.once('ping', () => void seen.push('once'));
    owner.on('ping', () => void owner.on('ping', () => void seen.push('late')));
    await owner.run('ping', 1);
    expect(seen).toEqual(['once']);
    await owner.run('ping', 2);
    expect(seen).toEqual(['once', 'late']);
  });

  it('a once listener taken by two runs at once is called by the first only', async () => {
    const owner = new Owner();
    let calls = 0;
    owner.once('ping', () => void calls++);
    const taken = [owner.emitter.listeners('ping'), owner.emitter.listeners('ping')];
    await Promise.all(taken.map((listeners) => settleListeners(listeners, 1)));
    expect(calls).toBe(1);
    expect(owner.listenerCount('ping')).toBe(0);
  });

  it('awaits an async listener before it resolves; an event with no listener gives no failure', async () => {
    const owner = new Owner();
    let done = false;
    owner.on('ping', async () => {
      await new Promise((resolve) => setImmediate(resolve));
      done = true;
    });
    expect(await owner.run('ping', 1)).toEqual([]);
    expect(done).toBe(true);
    expect(await owner.run('other')).toEqual([]);
  });
});

describe('Listeners: the emitter methods over a held eventemitter3', () => {
  it('on / once / off (by function, context, once) / removeAllListeners / listenerCount / listeners', () => {
    const owner = new Owner();
    const fn = () => {};
    const a = { a: 1 };
    owner.on('ping', fn, a).on('ping', fn).once('ping', fn);
    expect(owner.listenerCount('ping')).toBe(3);
    expect(owner.listeners('ping')).toEqual([fn, fn, fn]);
    owner.off('ping', fn, undefined, true); // only the once one
    expect(owner.listenerCount('ping')).toBe(2);
    owner.removeListener('ping', fn, a); // only the one with context a
    expect(owner.listeners('ping')).toEqual([fn]);
    owner.on('other', () => {});
    expect(owner.eventNames()).toEqual(['ping', 'other']);
    owner.removeAllListeners('ping');
    expect([owner.listenerCount('ping'), owner.listenerCount('other')]).toEqual([0, 1]);
    owner.removeAllListeners();
    expect(owner.eventNames()).toEqual([]);
  });

  it("a user's function with a `listener` property of its own is held, listed and removed as itself", async () => {
    // Node's own `once` wrappers and some spies carry a `listener` field: not one of our wrappers.
    const owner = new Owner();
    const inner = () => {};
    let calls = 0;
    const fn = Object.assign(() => void calls++, { listener: inner });
    owner.on('ping', fn);
    expect(owner.listeners('ping')).toEqual([fn]);
    await settleListeners(owner.emitter.listeners('ping'), 1);
    expect(calls).toBe(1);
    owner.off('ping', fn);
    expect(owner.listenerCount('ping')).toBe(0);
    owner.on('ping', fn).off('ping', inner); // the field's function was never added
    expect(owner.listenerCount('ping')).toBe(1);
  });

  it('has no emit of its own: the owner runs its listeners', () => {
    expect('emit' in new Owner()).toBe(false);
  });
});
