/**
 * Ids and times for built deliveries: random by default, the same on every run for one seed, so
 * a test or a golden file can name them.
 */
export interface IdSource {
  /** The next id, shaped as a UUIDv4 (the spec documents UUIDs). */
  id(): string;
  /** Unix milliseconds used for every timestamp of one build. */
  readonly now: number;
}

/** 2025-01-01T00:00:00Z: the time of every seeded build, so seeded bodies never change. */
export const SEEDED_NOW = 1_735_689_600_000;

/** FNV-1a of a string seed; a number seed is used as it is. */
function seedBits(seed: number | string): number {
  if (typeof seed === 'number') return seed >>> 0;
  let h = 2166136261;
  for (const c of seed) h = Math.imul(h ^ (c.codePointAt(0) ?? 0), 16777619);
  return h >>> 0;
}

/** mulberry32: a small, fast 32-bit generator; not for secrets, only for repeatable test data. */
function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
}

/** An id source: seeded (repeatable, time fixed at {@link SEEDED_NOW}) or random (time now). */
export function idSource(seed?: number | string, now?: number): IdSource {
  const next = mulberry32(seed === undefined ? (Math.random() * 2 ** 32) >>> 0 : seedBits(seed));
  return {
    now: now ?? (seed === undefined ? Date.now() : SEEDED_NOW),
    id() {
      const bytes = new Uint8Array(16);
      for (let i = 0; i < 16; i += 4) new DataView(bytes.buffer).setUint32(i, next());
      bytes[6] = ((bytes[6] as number) & 0x0f) | 0x40; // version 4
      bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80; // RFC 4122 variant
      const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
      return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
    },
  };
}
