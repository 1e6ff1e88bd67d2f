import type { InboxDelta } from './delta.js';

/**
 * Most bytes of one event's JSON: an update larger than this (the first one a page gets, with
 * hundreds of long messages) is sent as several events, which the page applies as they come.
 * An entry larger than this alone (none is: texts are clipped) goes in an event of its own.
 */
export const PAGE_BYTES = 64 * 1024;

/** One `delta` event; JSON has no raw newline, so one `data:` line carries it whole. */
const event = (json: string) => `event: delta\ndata: ${json}\n\n`;

/**
 * The events of one update, written lazily (each entry is turned into JSON when its event is
 * made): the keys gone first, then the entries set, each event's JSON at most {@link PAGE_BYTES}.
 * The first event of a `reset` says so; every event but the last says `more`, so the page knows
 * when the update, and a reset's list of what it must keep, is whole.
 */
export function* eventPages(delta: InboxDelta): Generator<string> {
  const set: string[] = [];
  const del: string[] = [];
  let bytes = 0;
  let first = true;
  const page = (more: boolean) => {
    const head = `${first && delta.reset ? '"reset":true,' : ''}${more ? '"more":true,' : ''}`;
    const json = `{${head}"set":[${set.join(',')}],"del":[${del.join(',')}]}`;
    first = false;
    set.length = 0;
    del.length = 0;
    bytes = 0;
    return event(json);
  };
  const lists: [string[], readonly unknown[]][] = [
    [del, delta.del],
    [set, delta.set],
  ];
  for (const [list, values] of lists) {
    for (const value of values) {
      const json = JSON.stringify(value);
      const size = Buffer.byteLength(json) + 1;
      if (bytes > 0 && bytes + size > PAGE_BYTES) yield page(true);
      list.push(json);
      bytes += size;
    }
  }
  yield page(false);
}
