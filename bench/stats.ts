import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Median of a list of numbers. */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** Times `fn` `n` times in a row; returns each duration in µs. */
export async function timeEach(n: number, fn: () => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn();
    out.push((performance.now() - t0) * 1000);
  }
  return out;
}

/** One line of the report: a figure, its target and whether it is met. */
export function verdict(name: string, figure: string, ok: boolean, target: string): string {
  return `${ok ? 'PASS' : 'FAIL'}  ${name}: ${figure} (target ${target})`;
}

let gc: (() => void) | undefined;

/**
 * A full garbage collection now, so that a timed section pays for its own garbage and not for
 * what the section before it left (a million-object body leaves ~80 MB).
 */
export function collectGarbage(): void {
  if (!gc) {
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as () => void;
  }
  gc();
}

/**
 * Runs `round` for the bare server and the SDK's, back to back, `rounds` times, the first one
 * alternating: a pair measured together shares the machine's speed of the moment, and neither
 * side always runs on a warmer (or a more tired) machine.
 */
export async function pairedRounds(
  rounds: number,
  round: (which: 'bare' | 'sdk') => Promise<void>,
): Promise<void> {
  for (let i = 0; i < rounds; i++) {
    const first = i % 2 === 0 ? 'bare' : 'sdk';
    await round(first);
    await round(first === 'bare' ? 'sdk' : 'bare');
  }
}
