import { describe, expect, it } from 'vitest';
import { decodePng, MAX_PNG_PIXELS, PngDecodeError } from '../../src/cli/png-decode.js';
import {
  halfBlockLines,
  QrNotFoundError,
  qrModules,
  TERMINAL_QUIET_ZONE,
} from '../../src/cli/terminal-qr.js';
import { qrText } from '../../src/testing/channel-life.js';
import { qrPng } from '../../src/testing/png.js';
import { encodeQr } from '../../src/testing/qr-code.js';
import { encodePng, type PngSpec } from '../support/png-encode.js';
import { readHalfBlocks, readModules } from '../support/qr-read.js';

const ESC = String.fromCharCode(27);
const TEXT = 'mgsdk-fake:ch_test:0';
const qr = encodeQr(TEXT);
const SCALE = 3;
const QUIET = 4;
const px = (qr.size + 2 * QUIET) * SCALE;
/** Whether pixel (x, y) of the QR's picture is dark. */
const darkAt = (x: number, y: number) =>
  qr.modules[Math.floor(y / SCALE) - QUIET]?.[Math.floor(x / SCALE) - QUIET] === true;
const base = { width: px, height: px, filter: (y: number) => y % 5 };

/** The QR in every colour type and the depths the service or an editor may write. */
const KINDS: [string, PngSpec][] = [
  ['grey, 8 bits', { ...base, colour: 0, depth: 8, pixel: (x, y) => [darkAt(x, y) ? 20 : 240] }],
  ['grey, 1 bit', { ...base, colour: 0, depth: 1, pixel: (x, y) => [darkAt(x, y) ? 0 : 1] }],
  ['grey, 16 bits', { ...base, colour: 0, depth: 16, pixel: (x, y) => [darkAt(x, y) ? 0 : 65535] }],
  [
    'RGB, 8 bits',
    { ...base, colour: 2, depth: 8, pixel: (x, y) => (darkAt(x, y) ? [10, 30, 90] : [250, 250, 230]) },
  ],
  [
    'palette, 8 bits',
    {
      ...base,
      colour: 3,
      depth: 8,
      palette: [255, 255, 255, 0, 0, 0],
      pixel: (x, y) => [darkAt(x, y) ? 1 : 0],
    },
  ],
  [
    'palette, 2 bits',
    {
      ...base,
      colour: 3,
      depth: 2,
      palette: [255, 0, 0, 0, 0, 0, 255, 255, 255],
      pixel: (x, y) => [darkAt(x, y) ? 1 : 2],
    },
  ],
  ['grey + alpha, 8 bits', { ...base, colour: 4, depth: 8, pixel: (x, y) => [0, darkAt(x, y) ? 255 : 0] }],
  [
    'RGBA, 8 bits',
    { ...base, colour: 6, depth: 8, pixel: (x, y) => (darkAt(x, y) ? [0, 0, 0, 255] : [0, 0, 0, 0]) },
  ],
  [
    'RGBA, 16 bits',
    {
      ...base,
      colour: 6,
      depth: 16,
      pixel: (x, y) => (darkAt(x, y) ? [0, 0, 0, 65535] : [65535, 65535, 65535, 65535]),
    },
  ],
];

describe('decodePng: the QR picture in every colour type, every filter', () => {
  for (const [name, spec] of KINDS) {
    it(`reads ${name} to the same modules`, () => {
      const image = decodePng(encodePng(spec));
      expect([image.width, image.height]).toEqual([px, px]);
      expect(qrModules(image)).toEqual(qr.modules);
    });
  }

  it('refuses what it does not read, saying what', () => {
    const grey = KINDS[0]?.[1] as PngSpec;
    expect(() => decodePng(Buffer.from('GIF89a....'))).toThrow(PngDecodeError);
    expect(() => decodePng(encodePng({ ...grey, interlace: true }))).toThrow(/interlaced PNGs are not read/);
    expect(() => decodePng(encodePng({ ...grey, depth: 4, colour: 2 as 0 }))).toThrow(
      /bit depth 4 is not read for colour type 2/,
    );
    expect(() => decodePng(encodePng(grey).subarray(0, 60))).toThrow(/cut short|ends before/);
    const huge = encodePng(grey);
    huge.writeUInt32BE(4097, 16); // the header's width and height; refused before any inflate
    huge.writeUInt32BE(4097, 20);
    expect(() => decodePng(huge)).toThrow(`at most ${MAX_PNG_PIXELS} are read`);
  });

  it("never puts the PNG's own bytes in its message (a chunk type of control characters would reach the terminal)", () => {
    const grey = encodePng(KINDS[0]?.[1] as PngSpec);
    // after the header (8 + 25 bytes): a chunk whose type is ESC [ 2 J (clear the screen), cut short
    const evil = Buffer.concat([grey.subarray(0, 33), Buffer.from([0, 0, 0, 9]), Buffer.from(`${ESC}[2J`)]);
    expect(() => decodePng(evil)).toThrow(PngDecodeError);
    expect(() => decodePng(evil)).not.toThrow(ESC);
  });

  it('refuses a palette index past the palette, and a palette that is not whole entries', () => {
    const spec: PngSpec = {
      ...base,
      colour: 3,
      depth: 8,
      palette: [0, 0, 0, 255, 255, 255],
      pixel: () => [0],
    };
    expect(() => decodePng(encodePng(spec))).not.toThrow();
    // index 2 of a palette of 2 entries: not read as black (a made-up dark module)
    expect(() => decodePng(encodePng({ ...spec, pixel: (x) => [x % 3] }))).toThrow(/palette index 2/);
    expect(() => decodePng(encodePng({ ...spec, palette: [0, 0, 0, 255] }))).toThrow(PngDecodeError);
  });

  it('refuses image data that inflates to more than the header says (a bound on the inflate)', () => {
    const bomb = encodePng({ ...base, colour: 0, depth: 8, pixel: () => [0] });
    const small = encodePng({ ...base, width: 8, height: 8, colour: 0, depth: 8, pixel: () => [0] });
    // the small header with the big picture's data
    const mixed = Buffer.concat([small.subarray(0, 33), bomb.subarray(33)]);
    expect(() => decodePng(mixed)).toThrow(PngDecodeError);
  });
});

describe('the QR in the terminal: half blocks that decode to the QR content', () => {
  it("prints the fake gateway's QR so that it reads back to the fake's text", () => {
    const text = qrText('5f0c9a7e-2b1d-4c55-9a0e-5b8f0e6d2c11', 2);
    const lines = halfBlockLines(qrModules(decodePng(qrPng(text))));
    expect(lines.join('')).toMatch(/^[ ▀▄█]+$/);
    const size = encodeQr(text).size;
    expect(lines).toHaveLength(Math.ceil((size + 2 * TERMINAL_QUIET_ZONE) / 2));
    expect(readHalfBlocks(lines)).toBe(text);
  });

  it('reads back at every module size the picture may use', () => {
    for (const scale of [1, 2, 5, 8])
      expect(readModules(qrModules(decodePng(qrPng(TEXT, scale))))).toBe(TEXT);
  });

  it('wraps each line in white on black with colour, the same characters inside', () => {
    const plain = halfBlockLines(qr.modules);
    const coloured = halfBlockLines(qr.modules, true);
    expect(coloured.map((l) => l.replaceAll(ESC, '').replace(/\[[0-9;]*m/g, ''))).toEqual(plain);
    expect(coloured[0]).toMatch(new RegExp(`^${ESC}\\[97;40m`));
  });

  it('says so when the picture holds no QR code', () => {
    const blank = { width: 50, height: 50, light: new Uint8Array(2500).fill(255) };
    expect(() => qrModules(blank)).toThrow(QrNotFoundError);
    const square = decodePng(
      encodePng({
        ...base,
        colour: 0,
        depth: 8,
        pixel: (x, y) => [x > 10 && x < 40 && y > 10 && y < 40 ? 0 : 255],
      }),
    );
    expect(() => qrModules(square)).toThrow(QrNotFoundError);
  });
});
