// "Did you mean …?" for a mistyped command: the nearest known name by edit distance.

/**
 * Edit distance between two short strings: insertions, deletions, substitutions and swaps of two
 * neighbouring letters cost 1 each (`sned` is one edit from `send`).
 */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = [Array.from({ length: b.length + 1 }, (_, j) => j)];
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    const up = rows[i - 1] as number[];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min((up[j - 1] as number) + cost, (up[j] as number) + 1, (row[j - 1] as number) + 1);
      const swapped = i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1];
      if (swapped) best = Math.min(best, ((rows[i - 2] as number[])[j - 2] as number) + 1);
      row[j] = best;
    }
    rows.push(row);
  }
  return (rows[a.length] as number[])[b.length] as number;
}

/** The longest name the bin compares: a pasted paragraph is not a near miss of anything. */
const MAX_COMPARED = 64;

/**
 * The known name nearest to `typed`, when it is a near miss: at most 2 edits, and fewer edits than
 * half the name's length (one edit for a name of up to 4 letters), compared case-insensitively.
 */
export function nearest(typed: string, known: Iterable<string>): string | undefined {
  if (typed.length > MAX_COMPARED) return undefined;
  let best: { name: string; distance: number } | undefined;
  for (const name of known) {
    const distance = editDistance(typed.toLowerCase(), name);
    const near = distance <= 2 && distance < Math.max(2, name.length / 2);
    if (near && (!best || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}
