// A PNG decoder for the QR the service sends (channel.qr_update): enough of PNG (RFC 2083) for a
// picture of a QR code, down to one lightness byte per pixel. Colour types grey, RGB, palette,
// grey+alpha and RGBA; bit depths 1/2/4/8 (grey, palette) and 8/16 (the others); no interlace.
import { inflateSync } from 'node:zlib';
import { hasPngSignature } from '../internal/png-signature.js';

/**
 * The most pixels a picture may have (2048 × 2048; a QR from the service is a few hundred wide):
 * it bounds what inflating a hostile PNG costs.
 */
export const MAX_PNG_PIXELS = 2048 * 2048;

/** A picture as lightness: `light[y * width + x]` is 0 (black) to 255 (white), transparency on white. */
export interface GreyImage {
  width: number;
  height: number;
  light: Uint8Array;
}

/** A PNG this decoder does not read: not a PNG, damaged, too large, or a kind it leaves out. */
export class PngDecodeError extends Error {
  override name = 'PngDecodeError';
}

/** Samples per pixel by colour type. */
const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };
/** Bit depths allowed by colour type (spec: IHDR). */
const DEPTHS: Record<number, number[]> = {
  0: [1, 2, 4, 8, 16],
  2: [8, 16],
  3: [1, 2, 4, 8],
  4: [8, 16],
  6: [8, 16],
};

interface Header {
  width: number;
  height: number;
  depth: number;
  colour: number;
}

/** The chunks' parts this decoder uses: the header, the palette, and the joined image data. */
function readChunks(png: Uint8Array): { header: Header; palette: Uint8Array | undefined; data: Uint8Array } {
  if (!hasPngSignature(png)) throw new PngDecodeError('not a PNG (no PNG signature)');
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  let header: Header | undefined;
  let palette: Uint8Array | undefined;
  const idat: Uint8Array[] = [];
  for (let at = 8; ; ) {
    if (at + 8 > png.length) throw new PngDecodeError('the PNG ends before its IEND chunk');
    const length = view.getUint32(at);
    const type = String.fromCharCode(...png.subarray(at + 4, at + 8));
    // a chunk type is 4 ASCII letters (spec: chunk layout); anything else is never echoed, as the
    // messages reach the terminal
    if (!/^[A-Za-z]{4}$/.test(type))
      throw new PngDecodeError('the PNG is damaged (a chunk type that is not 4 letters)');
    const body = png.subarray(at + 8, at + 8 + length);
    if (body.length !== length) throw new PngDecodeError(`the PNG's ${type} chunk is cut short`);
    at += 12 + length;
    if (type === 'IHDR') {
      if (length !== 13) throw new PngDecodeError('the PNG header (IHDR) is not 13 bytes');
      const h = new DataView(body.buffer, body.byteOffset, 13);
      header = {
        width: h.getUint32(0),
        height: h.getUint32(4),
        depth: body[8] as number,
        colour: body[9] as number,
      };
      if (body[12] !== 0)
        throw new PngDecodeError('interlaced PNGs are not read; save the QR without interlacing');
    } else if (type === 'PLTE') palette = body;
    else if (type === 'IDAT') idat.push(body);
    else if (type === 'IEND') break;
  }
  if (!header) throw new PngDecodeError('the PNG has no header (IHDR)');
  return { header, palette, data: Buffer.concat(idat) };
}

/** Checks the header against what this decoder reads; returns bytes per scanline (without the filter byte). */
function checkHeader({ width, height, depth, colour }: Header, palette: Uint8Array | undefined): number {
  const channels = CHANNELS[colour];
  if (channels === undefined) throw new PngDecodeError(`PNG colour type ${colour} does not exist`);
  if (!DEPTHS[colour]?.includes(depth))
    throw new PngDecodeError(`PNG bit depth ${depth} is not read for colour type ${colour}`);
  if (width === 0 || height === 0) throw new PngDecodeError('the PNG has no pixels');
  if (width * height > MAX_PNG_PIXELS)
    throw new PngDecodeError(`the PNG has ${width} × ${height} pixels; at most ${MAX_PNG_PIXELS} are read`);
  if (colour === 3 && !palette) throw new PngDecodeError('the palette PNG has no palette (PLTE)');
  if (palette && (palette.length === 0 || palette.length % 3 !== 0 || palette.length > 256 * 3))
    throw new PngDecodeError('the PNG palette (PLTE) is not 1 to 256 entries of 3 bytes');
  return Math.ceil((width * channels * depth) / 8);
}

/** Undoes the per-scanline filters (none, sub, up, average, Paeth) in place; returns the raw rows. */
function unfilter(data: Uint8Array, header: Header, stride: number): Uint8Array {
  const bpp = Math.max(1, Math.ceil(((CHANNELS[header.colour] as number) * header.depth) / 8));
  const out = new Uint8Array(stride * header.height);
  for (let y = 0; y < header.height; y++) {
    const filter = data[y * (stride + 1)] as number;
    const line = data.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const row = y * stride;
    for (let x = 0; x < stride; x++) {
      const a = x >= bpp ? (out[row + x - bpp] as number) : 0;
      const b = y > 0 ? (out[row - stride + x] as number) : 0;
      const c = x >= bpp && y > 0 ? (out[row - stride + x - bpp] as number) : 0;
      let predictor = 0;
      if (filter === 1) predictor = a;
      else if (filter === 2) predictor = b;
      else if (filter === 3) predictor = (a + b) >> 1;
      else if (filter === 4) {
        const p = a + b - c;
        const [pa, pb, pc] = [Math.abs(p - a), Math.abs(p - b), Math.abs(p - c)];
        predictor = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      } else if (filter !== 0)
        throw new PngDecodeError(`the PNG uses filter type ${filter}, which does not exist`);
      out[row + x] = ((line[x] as number) + predictor) & 0xff;
    }
  }
  return out;
}

/**
 * Lightness of one pixel's samples (8-bit each), with alpha composited on white.
 * @throws PngDecodeError for a palette index past the palette (spec: PLTE)
 */
function lightness(samples: readonly number[], colour: number, palette: Uint8Array | undefined): number {
  let [r, g, b, alpha] = [0, 0, 0, 255];
  if (colour === 3) {
    const i = (samples[0] as number) * 3;
    if (!palette || i + 2 >= palette.length)
      throw new PngDecodeError(`the PNG uses palette index ${samples[0]}, past its palette`);
    [r, g, b] = [palette[i] as number, palette[i + 1] as number, palette[i + 2] as number];
  } else if (colour === 0 || colour === 4) {
    r = g = b = samples[0] as number;
    if (colour === 4) alpha = samples[1] as number;
  } else {
    [r, g, b] = samples as [number, number, number];
    if (colour === 6) alpha = samples[3] as number;
  }
  const grey = (r * 299 + g * 587 + b * 114) / 1000;
  return Math.round((grey * alpha + 255 * (255 - alpha)) / 255);
}

/**
 * Decodes a PNG to one lightness byte per pixel.
 * @throws PngDecodeError when it is not a PNG, is damaged, has more than {@link MAX_PNG_PIXELS}
 * pixels, or is interlaced.
 */
export function decodePng(png: Uint8Array): GreyImage {
  const { header, palette, data } = readChunks(png);
  const stride = checkHeader(header, palette);
  const expected = (stride + 1) * header.height;
  let inflated: Uint8Array;
  try {
    inflated = inflateSync(data, { maxOutputLength: expected });
  } catch (error) {
    throw new PngDecodeError(
      `the PNG's image data does not inflate to ${expected} bytes (${(error as Error).message})`,
    );
  }
  if (inflated.length !== expected)
    throw new PngDecodeError(`the PNG's image data is ${inflated.length} bytes, not ${expected}`);
  const raw = unfilter(inflated, header, stride);
  const { width, height, depth, colour } = header;
  const channels = CHANNELS[colour] as number;
  const light = new Uint8Array(width * height);
  const samples = new Array<number>(channels);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      for (let s = 0; s < channels; s++)
        samples[s] = sample(raw, y * stride, x * channels + s, depth, colour);
      light[y * width + x] = lightness(samples, colour, palette);
    }
  }
  return { width, height, light };
}

/** Sample number `index` of a row, scaled to 8 bits (palette indices are kept as they are). */
function sample(raw: Uint8Array, row: number, index: number, depth: number, colour: number): number {
  if (depth === 8) return raw[row + index] as number;
  if (depth === 16) return raw[row + index * 2] as number;
  const bit = index * depth;
  const value = ((raw[row + (bit >> 3)] as number) >> (8 - depth - (bit & 7))) & ((1 << depth) - 1);
  return colour === 3 ? value : Math.round((value * 255) / ((1 << depth) - 1));
}
