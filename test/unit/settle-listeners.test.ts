// Listeners are run by one plain function over a map the emitter owns (as octokit's receive does):
// every listener runs, failures are collected, and nothing is read from another library's internals.
import { describe, expect, it } from 'vitest';
import { ListenerMap, Listeners } from '../../src/internal/listener-map.js';
import { settleListeners } from '../../src/internal/settle-listeners.js';

type Events = { ping: (n: number) => unknown; other: () => void };

describe('settleListeners', () => {
  it('runs every listener in order, each with its context; collects a throw and a rejection without stopping the rest', async () => {
    const map = new ListenerMap<Events>();
    const seen: string[] = [];
    const context = { name: 'ctx' };
    map.add('ping', () => void seen.push('first'), undefined, false);
    map.add(
      'ping',
      () => {
        throw new Error('sync');
      },
      undefined,
      false,
    );
    map.add('ping', async () => Promise.reject(new Error('async')), undefined, false);
    map.add(
      'ping',
      function (this: typeof context, n: number) {
        seen.push(`${this.name}:${n}`);
      },
      context,
      false,
    );
    const failures = await settleListeners(map, 'ping', 7);
    expect(seen).toEqual(['first', 'ctx:7']);
    expect(failures.map((e) => (e as Error).message)).toEqual(['sync', 'async']);
  });

  it('a once listener runs once; a listener added during a run waits for the next run', async () => {
    const map = new ListenerMap<Events>();
    const seen: string[] = [];
    map.add('ping', () => void seen.push('once'), undefined, true);
    map.add(
      'ping',
      () => void map.add('ping', () => void seen.push('late'), undefined, false),
      undefined,
      false,
    );
    await settleListeners(map, 'ping', 1);
    expect(seen).toEqual(['once']);
    await settleListeners(map, 'ping', 2);
    expect(seen).toEqual(['once', 'late']);
  });

  it('awaits an async listener before it resolves; an event with no listener gives no failure', async () => {
    const map = new ListenerMap<Events>();
    let done = false;
    map.add(
      'ping',
      async () => {
        await new Promise((resolve) => setImmediate(resolve));
        done = true;
      },
      undefined,
      false,
    );
    expect(await settleListeners(map, 'ping', 1)).toEqual([]);
    expect(done).toBe(true);
    expect(await settleListeners(map, 'other')).toEqual([]);
  });
});

describe('Listeners: the emitter methods over the map', () => {
  class Emitter extends Listeners<Events> {
    constructor(readonly map = new ListenerMap<Events>()) {
      super(map);
    }
  }

  it('on / once / off (by function, context, once) / removeAllListeners / listenerCount / listeners', () => {
    const emitter = new Emitter();
    const fn = () => {};
    const a = { a: 1 };
    emitter.on('ping', fn, a).on('ping', fn).once('ping', fn);
    expect(emitter.listenerCount('ping')).toBe(3);
    emitter.off('ping', fn, undefined, true); // only the once one
    expect(emitter.listenerCount('ping')).toBe(2);
    emitter.removeListener('ping', fn, a); // only the one with context a
    expect(emitter.listeners('ping')).toEqual([fn]);
    emitter.on('other', () => {});
    expect(emitter.eventNames()).toEqual(['ping', 'other']);
    emitter.removeAllListeners('ping');
    expect([emitter.listenerCount('ping'), emitter.listenerCount('other')]).toEqual([0, 1]);
    emitter.removeAllListeners();
    expect(emitter.eventNames()).toEqual([]);
  });
});
