// PNGs of every colour type for the decoder's tests, their rows packed and filtered here (not by
// the decoder's code), so the decoder is not checked against its own reading.
import { deflateSync } from 'node:zlib';
import { pngChunk as chunk, PNG_SIGNATURE } from '../../src/testing/png.js';

/** What a test PNG is made of. */
export interface PngSpec {
  width: number;
  height: number;
  colour: 0 | 2 | 3 | 4 | 6;
  depth: 1 | 2 | 4 | 8 | 16;
  /** The samples of each pixel at the given depth (a palette index for colour type 3). */
  pixel: (x: number, y: number) => number[];
  palette?: number[];
  /** The filter type of row y (0–4); default 0. */
  filter?: (y: number) => number;
  interlace?: boolean;
}

/** Encodes the rows with their filters, as an encoder would. */
function filtered(raw: Buffer[], bpp: number, filter: (y: number) => number): Buffer {
  const out: Buffer[] = [];
  raw.forEach((line, y) => {
    const f = filter(y);
    const prev = raw[y - 1];
    const row = Buffer.alloc(line.length + 1);
    row[0] = f;
    for (let x = 0; x < line.length; x++) {
      const a = x >= bpp ? (line[x - bpp] as number) : 0;
      const b = prev ? (prev[x] as number) : 0;
      const c = prev && x >= bpp ? (prev[x - bpp] as number) : 0;
      const p = a + b - c;
      const paeth =
        Math.abs(p - a) <= Math.abs(p - b) && Math.abs(p - a) <= Math.abs(p - c)
          ? a
          : Math.abs(p - b) <= Math.abs(p - c)
            ? b
            : c;
      const predictor = [0, a, b, (a + b) >> 1, paeth][f] as number;
      row[x + 1] = ((line[x] as number) - predictor) & 0xff;
    }
    out.push(row);
  });
  return Buffer.concat(out);
}

/** A PNG built from `spec`. */
export function encodePng(spec: PngSpec): Buffer {
  const channels = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 }[spec.colour];
  const rows: Buffer[] = [];
  for (let y = 0; y < spec.height; y++) {
    const bits: number[] = [];
    for (let x = 0; x < spec.width; x++) {
      for (const s of spec.pixel(x, y)) for (let i = spec.depth - 1; i >= 0; i--) bits.push((s >> i) & 1);
    }
    while (bits.length % 8) bits.push(0);
    const line = Buffer.alloc(bits.length / 8);
    for (let i = 0; i < bits.length; i++)
      line[i >> 3] = (line[i >> 3] as number) | ((bits[i] as number) << (7 - (i & 7)));
    rows.push(line);
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(spec.width, 0);
  header.writeUInt32BE(spec.height, 4);
  header[8] = spec.depth;
  header[9] = spec.colour;
  header[12] = spec.interlace ? 1 : 0;
  const bpp = Math.max(1, (channels * spec.depth) / 8);
  return Buffer.concat([
    PNG_SIGNATURE,
    chunk('IHDR', header),
    ...(spec.palette ? [chunk('PLTE', Uint8Array.from(spec.palette))] : []),
    chunk('IDAT', deflateSync(filtered(rows, bpp, spec.filter ?? (() => 0)))),
    chunk('IEND', new Uint8Array(0)),
  ]);
}
