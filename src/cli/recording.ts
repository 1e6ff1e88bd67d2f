// The files `fake-gateway --record` writes and `replay` reads: per delivery, its raw body
// (`0001-message.add.json`, the form `decode` reads) and a small sidecar
// (`0001-message.add.meta.json`) with what the body does not hold: the URL's query and headers.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DeliveryRecord } from '../testing/deliveries.js';

/** What a sidecar holds. */
export interface Sidecar {
  /** The delivery URL's query (`?secret=…`), used when `replay --to` has none. */
  query?: string;
  /** The headers the delivery was sent with (content type, a v3 delivery's Authorization). */
  headers?: Record<string, string>;
  /** The status the receiver answered when it was recorded (0: no answer). */
  status?: number;
}

/** The sidecar's name next to a body file. */
export const sidecarOf = (file: string): string => file.replace(/\.json$/, '.meta.json');

/** Whether a file name is a sidecar (replay skips them as bodies). */
export const isSidecar = (file: string): boolean => file.endsWith('.meta.json');

/** Saves each delivery in `dir`, numbered in the order they were answered. Files are private (0600). */
export function recorder(dir: string) {
  mkdirSync(dir, { recursive: true });
  let n = 0;
  return (record: DeliveryRecord, sent: { body: string; headers: Record<string, string> }): void => {
    n++;
    const name = `${String(n).padStart(4, '0')}-${record.kind.replace(/[^\w.+-]/g, '_')}.json`;
    const file = join(dir, name);
    const { search } = new URL(record.url);
    const sidecar: Sidecar = {
      ...(search && { query: search }),
      headers: sent.headers,
      status: record.status ?? 0,
    };
    writeFileSync(file, sent.body, { mode: 0o600 });
    writeFileSync(sidecarOf(file), `${JSON.stringify(sidecar, null, 2)}\n`, { mode: 0o600 });
  };
}
