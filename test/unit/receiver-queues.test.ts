// The turns the fake gives its deliveries, receiver by receiver and in all: bounded however many
// receivers hold their deliveries unanswered, and shared fairly between them.
import { describe, expect, it } from 'vitest';
import {
  type NoTurn,
  RECEIVER_LIMITS,
  ReceiverQueues,
  type Turn,
} from '../../src/testing/receiver-queues.js';

const { inFlight, waiting, inFlightInAll, waitingInAll } = RECEIVER_LIMITS;
const receiver = (i: number) => `http://127.0.0.1:${10_000 + i}/hooks`;
const FAR = Number.MAX_SAFE_INTEGER; // a deadline never reached: only turns and close() decide

/** Asks `n` turns for `url`; each outcome lands in `outcomes` in the order asked, once settled. */
function ask(queues: ReceiverQueues, url: string, n: number, deadline = FAR) {
  const outcomes: (Turn | NoTurn | undefined)[] = Array.from({ length: n }, () => undefined);
  for (let i = 0; i < n; i++) void queues.turn(url, deadline).then((o) => (outcomes[i] = o));
  return outcomes;
}
const turns = (outcomes: (Turn | NoTurn | undefined)[]) =>
  outcomes.filter((o): o is Turn => typeof o === 'object');
const count = (outcomes: (Turn | NoTurn | undefined)[], what: NoTurn | undefined) =>
  outcomes.filter((o) => o === what).length;
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('ReceiverQueues, with many receivers that never answer', () => {
  const receivers = Math.ceil(waitingInAll / waiting) + 2;

  it(`holds at most ${inFlightInAll} in flight and ${waitingInAll} waiting in all, and drops the rest`, async () => {
    const queues = new ReceiverQueues();
    const each = inFlight + waiting + 1;
    const all = Array.from({ length: receivers }, (_, i) => ask(queues, receiver(i), each));
    await settle();
    const flat = all.flat();
    expect(turns(flat)).toHaveLength(inFlightInAll);
    expect(count(flat, undefined)).toBe(waitingInAll);
    expect(count(flat, 'dropped')).toBe(receivers * each - inFlightInAll - waitingInAll);
    for (const outcomes of all) expect(turns(outcomes).length).toBeLessThanOrEqual(inFlight);
    queues.close();
    await settle();
    expect(count(all.flat(), 'closed')).toBe(waitingInAll);
  });

  it('gives a turn freed to a receiver held back only by the limit of all, before the line that freed it', async () => {
    const queues = new ReceiverQueues();
    const full = inFlightInAll / inFlight; // receivers that take every turn there is
    const busy = Array.from({ length: full }, (_, i) => ask(queues, receiver(i), inFlight + 1));
    const late = ask(queues, receiver(full), 1);
    await settle();
    expect(turns(busy.flat())).toHaveLength(inFlightInAll);
    expect(late).toEqual([undefined]);
    (turns(busy[0] ?? [])[0] as Turn).end();
    await settle();
    expect(turns(late)).toHaveLength(1); // the receiver that waited for a turn of all
    expect(busy[0]?.at(-1)).toBeUndefined(); // the line that freed it waits its turn
    (turns(late)[0] as Turn).end();
    await settle();
    expect(typeof busy[0]?.at(-1)).toBe('object'); // then its own line has the turn
    queues.close();
  });
});
