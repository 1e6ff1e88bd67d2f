// A QR code encoder (ISO/IEC 18004) for the fake gateway's channel.qr_update: byte mode,
// versions 1–10, error correction level M, the mask with the lowest penalty. Enough for the short
// strings the fake puts in its QRs, so that a phone camera or a decoder reads them back.

/** Error-correction codewords per block, level M, by version (index 0 unused). */
const ECC_PER_BLOCK = [0, 10, 16, 26, 18, 24, 16, 18, 22, 22, 26];
/** Error-correction blocks, level M, by version. */
const BLOCKS = [0, 1, 1, 1, 2, 2, 4, 4, 4, 5, 5];
/** Level M's two bits in the format information. */
const LEVEL_M = 0b00;

/** The largest version this encoder writes. */
export const MAX_QR_VERSION = 10;

/** The modules of a QR code: `modules[y][x]` is true for a dark module; no quiet zone. */
export interface QrCode {
  version: number;
  size: number;
  mask: number;
  modules: boolean[][];
}

/** Modules of the symbol a version's data bits may use (everything but the function patterns). */
function rawDataModules(version: number): number {
  let result = (16 * version + 128) * version + 64;
  if (version >= 2) {
    const align = Math.floor(version / 7) + 2;
    result -= (25 * align - 10) * align - 55;
    if (version >= 7) result -= 36;
  }
  return result;
}

/** Data codewords (before error correction) of a version at level M. */
function dataCodewords(version: number): number {
  return Math.floor(rawDataModules(version) / 8) - (ECC_PER_BLOCK[version] ?? 0) * (BLOCKS[version] ?? 0);
}

/** Multiplication in GF(256) with the QR code's polynomial 0x11d. */
function gfMultiply(x: number, y: number): number {
  let z = 0;
  for (let i = 7; i >= 0; i--) {
    z = (z << 1) ^ ((z >>> 7) * 0x11d);
    z ^= ((y >>> i) & 1) * x;
  }
  return z;
}

/** The Reed–Solomon generator polynomial of `degree` (its leading 1 left out). */
function rsDivisor(degree: number): number[] {
  const result = new Array<number>(degree).fill(0);
  result[degree - 1] = 1;
  let root = 1;
  for (let i = 0; i < degree; i++) {
    for (let j = 0; j < degree; j++) {
      result[j] = gfMultiply(result[j] as number, root) ^ (result[j + 1] ?? 0);
    }
    root = gfMultiply(root, 0x02);
  }
  return result;
}

/** The error-correction codewords of one block. */
function rsRemainder(data: readonly number[], divisor: readonly number[]): number[] {
  const result = new Array<number>(divisor.length).fill(0);
  for (const byte of data) {
    const factor = byte ^ (result.shift() as number);
    result.push(0);
    for (let i = 0; i < divisor.length; i++)
      result[i] = (result[i] as number) ^ gfMultiply(divisor[i] as number, factor);
  }
  return result;
}

/** The data codewords of `bytes` in byte mode: mode, count, bytes, terminator, padding. */
function dataCodewordsOf(bytes: Uint8Array, version: number): number[] {
  const bits: number[] = [];
  const put = (value: number, length: number) => {
    for (let i = length - 1; i >= 0; i--) bits.push((value >>> i) & 1);
  };
  const capacity = dataCodewords(version) * 8;
  put(0b0100, 4);
  put(bytes.length, version < 10 ? 8 : 16);
  for (const byte of bytes) put(byte, 8);
  put(0, Math.min(4, capacity - bits.length));
  put(0, (8 - (bits.length % 8)) % 8);
  const codewords: number[] = [];
  for (let i = 0; i < bits.length; i += 8)
    codewords.push(bits.slice(i, i + 8).reduce((a, b) => (a << 1) | b, 0));
  for (let pad = 0xec; codewords.length < capacity / 8; pad ^= 0xec ^ 0x11) codewords.push(pad);
  return codewords;
}

/** The data codewords split into blocks, each followed by its error correction, interleaved. */
function interleaved(data: readonly number[], version: number): number[] {
  const blocks = BLOCKS[version] as number;
  const eccLength = ECC_PER_BLOCK[version] as number;
  const raw = Math.floor(rawDataModules(version) / 8);
  const shortBlocks = blocks - (raw % blocks);
  const shortLength = Math.floor(raw / blocks);
  const divisor = rsDivisor(eccLength);
  const all: number[][] = [];
  for (let i = 0, k = 0; i < blocks; i++) {
    const take = shortLength - eccLength + (i < shortBlocks ? 0 : 1);
    const block = data.slice(k, k + take);
    k += take;
    const ecc = rsRemainder(block, divisor);
    if (i < shortBlocks) block.push(-1); // a gap, so every block has the same length
    all.push([...block, ...ecc]);
  }
  const out: number[] = [];
  for (let i = 0; i < (all[0] as number[]).length; i++) {
    for (const block of all) if (block[i] !== -1) out.push(block[i] as number);
  }
  return out;
}

/** The centres of the alignment patterns along one axis. */
function alignmentPositions(version: number, size: number): number[] {
  if (version === 1) return [];
  const count = Math.floor(version / 7) + 2;
  const step = Math.ceil((version * 4 + 4) / (count * 2 - 2)) * 2;
  const result = [6];
  for (let pos = size - 7; result.length < count; pos -= step) result.splice(1, 0, pos);
  return result;
}

/** A grid and which of its modules belong to function patterns. */
class Grid {
  readonly modules: boolean[][];
  readonly reserved: boolean[][];
  constructor(readonly size: number) {
    this.modules = Array.from({ length: size }, () => new Array<boolean>(size).fill(false));
    this.reserved = Array.from({ length: size }, () => new Array<boolean>(size).fill(false));
  }
  set(x: number, y: number, dark: boolean): void {
    (this.modules[y] as boolean[])[x] = dark;
    (this.reserved[y] as boolean[])[x] = true;
  }
}

/** Finder, separators, timing, alignment and version information; the format area reserved. */
function drawFunctionPatterns(grid: Grid, version: number): void {
  const { size } = grid;
  for (let i = 0; i < size; i++) {
    grid.set(6, i, i % 2 === 0);
    grid.set(i, 6, i % 2 === 0);
  }
  for (const [cx, cy] of [
    [3, 3],
    [size - 4, 3],
    [3, size - 4],
  ] as const) {
    for (let dy = -4; dy <= 4; dy++) {
      for (let dx = -4; dx <= 4; dx++) {
        const ring = Math.max(Math.abs(dx), Math.abs(dy));
        const x = cx + dx;
        const y = cy + dy;
        if (x >= 0 && x < size && y >= 0 && y < size) grid.set(x, y, ring !== 2 && ring !== 4);
      }
    }
  }
  const align = alignmentPositions(version, size);
  const last = align.length - 1;
  align.forEach((cx, i) => {
    align.forEach((cy, j) => {
      if ((i === 0 && j === 0) || (i === 0 && j === last) || (i === last && j === 0)) return;
      for (let dy = -2; dy <= 2; dy++) {
        for (let dx = -2; dx <= 2; dx++)
          grid.set(cx + dx, cy + dy, Math.max(Math.abs(dx), Math.abs(dy)) !== 1);
      }
    });
  });
  drawFormat(grid, 0); // reserves the area; the chosen mask's bits overwrite it
  if (version >= 7) {
    let rem = version;
    for (let i = 0; i < 12; i++) rem = (rem << 1) ^ ((rem >>> 11) * 0x1f25);
    const bits = (version << 12) | rem;
    for (let i = 0; i < 18; i++) {
      const dark = ((bits >>> i) & 1) === 1;
      const a = size - 11 + (i % 3);
      const b = Math.floor(i / 3);
      grid.set(a, b, dark);
      grid.set(b, a, dark);
    }
  }
}

/** The 15 format bits (level M and the mask, BCH-protected) in both of their places. */
function drawFormat(grid: Grid, mask: number): void {
  const data = (LEVEL_M << 3) | mask;
  let rem = data;
  for (let i = 0; i < 10; i++) rem = (rem << 1) ^ ((rem >>> 9) * 0x537);
  const bits = ((data << 10) | rem) ^ 0x5412;
  const bit = (i: number) => ((bits >>> i) & 1) === 1;
  const { size } = grid;
  for (let i = 0; i <= 5; i++) grid.set(8, i, bit(i));
  grid.set(8, 7, bit(6));
  grid.set(8, 8, bit(7));
  grid.set(7, 8, bit(8));
  for (let i = 9; i < 15; i++) grid.set(14 - i, 8, bit(i));
  for (let i = 0; i < 8; i++) grid.set(size - 1 - i, 8, bit(i));
  for (let i = 8; i < 15; i++) grid.set(8, size - 15 + i, bit(i));
  grid.set(8, size - 8, true); // the dark module
}

/** Places the codewords in the zigzag order, skipping function modules. */
function drawCodewords(grid: Grid, codewords: readonly number[]): void {
  const { size } = grid;
  let i = 0;
  for (let right = size - 1; right >= 1; right -= 2) {
    if (right === 6) right = 5;
    const upward = ((right + 1) & 2) === 0;
    for (let vert = 0; vert < size; vert++) {
      for (let j = 0; j < 2; j++) {
        const x = right - j;
        const y = upward ? size - 1 - vert : vert;
        if ((grid.reserved[y] as boolean[])[x] || i >= codewords.length * 8) continue;
        (grid.modules[y] as boolean[])[x] = (((codewords[i >>> 3] as number) >>> (7 - (i & 7))) & 1) === 1;
        i++;
      }
    }
  }
}

/** Whether mask pattern `mask` inverts the module at (x, y). */
function masked(mask: number, x: number, y: number): boolean {
  switch (mask) {
    case 0:
      return (x + y) % 2 === 0;
    case 1:
      return y % 2 === 0;
    case 2:
      return x % 3 === 0;
    case 3:
      return (x + y) % 3 === 0;
    case 4:
      return (Math.floor(x / 3) + Math.floor(y / 2)) % 2 === 0;
    case 5:
      return ((x * y) % 2) + ((x * y) % 3) === 0;
    case 6:
      return (((x * y) % 2) + ((x * y) % 3)) % 2 === 0;
    default:
      return (((x + y) % 2) + ((x * y) % 3)) % 2 === 0;
  }
}

/** Applies (or, applied twice, removes) a mask to the data modules. */
function applyMask(grid: Grid, mask: number): void {
  for (let y = 0; y < grid.size; y++) {
    for (let x = 0; x < grid.size; x++) {
      const row = grid.modules[y] as boolean[];
      if (!(grid.reserved[y] as boolean[])[x] && masked(mask, x, y)) row[x] = !row[x];
    }
  }
}

/** The standard's penalty score (rules 1–4); the encoder keeps the mask with the lowest. */
function penalty(modules: readonly boolean[][]): number {
  const size = modules.length;
  const at = (x: number, y: number, byRow: boolean) => (byRow ? modules[y]?.[x] : modules[x]?.[y]) as boolean;
  let score = 0;
  let dark = 0;
  const finderLike = [true, false, true, true, true, false, true];
  for (const byRow of [true, false]) {
    for (let a = 0; a < size; a++) {
      let run = 1;
      for (let b = 0; b < size; b++) {
        if (byRow && at(b, a, true)) dark++;
        if (b > 0 && at(b, a, byRow) === at(b - 1, a, byRow)) run++;
        else run = 1;
        if (run === 5) score += 3;
        else if (run > 5) score += 1;
        // rule 3: 1:1:3:1:1 with four light modules on one side
        if (b + 7 <= size && finderLike.every((v, k) => at(b + k, a, byRow) === v)) {
          const light = (from: number) =>
            [0, 1, 2, 3].every((k) => from + k < 0 || from + k >= size || !at(from + k, a, byRow));
          if (light(b - 4) || light(b + 7)) score += 40;
        }
      }
    }
  }
  for (let y = 0; y + 1 < size; y++) {
    for (let x = 0; x + 1 < size; x++) {
      const c = at(x, y, true);
      if (c === at(x + 1, y, true) && c === at(x, y + 1, true) && c === at(x + 1, y + 1, true)) score += 3;
    }
  }
  const total = size * size;
  score += Math.floor(Math.abs(dark * 20 - total * 10) / total) * 10;
  return score;
}

/**
 * Encodes `text` (as UTF-8 bytes) as a QR code: byte mode, level M, the smallest version from 1
 * to {@link MAX_QR_VERSION} that holds it, and the mask with the lowest penalty.
 * @throws RangeError when the text needs more than version 10 holds (213 bytes).
 */
export function encodeQr(text: string): QrCode {
  const bytes = new TextEncoder().encode(text);
  let version = 1;
  while (
    version <= MAX_QR_VERSION &&
    4 + (version < 10 ? 8 : 16) + bytes.length * 8 > dataCodewords(version) * 8
  )
    version++;
  if (version > MAX_QR_VERSION)
    throw new RangeError(
      `a QR code of version ${MAX_QR_VERSION} at level M holds at most 213 bytes; this text has ${bytes.length}`,
    );
  const grid = new Grid(version * 4 + 17);
  drawFunctionPatterns(grid, version);
  drawCodewords(grid, interleaved(dataCodewordsOf(bytes, version), version));
  let best = { mask: 0, score: Number.POSITIVE_INFINITY };
  for (let mask = 0; mask < 8; mask++) {
    applyMask(grid, mask);
    drawFormat(grid, mask);
    const score = penalty(grid.modules);
    if (score < best.score) best = { mask, score };
    applyMask(grid, mask);
  }
  applyMask(grid, best.mask);
  drawFormat(grid, best.mask);
  return { version, size: grid.size, mask: best.mask, modules: grid.modules };
}
