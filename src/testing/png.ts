import { crc32, deflateSync } from 'node:zlib';
import { PNG_SIGNATURE as SIGNATURE_BYTES } from '../internal/png-signature.js';
import { encodeQr } from './qr-code.js';

/** The eight bytes every PNG starts with. */
export const PNG_SIGNATURE = Buffer.from(SIGNATURE_BYTES);

/** The quiet zone around a QR code, in modules (the standard's four). */
const QUIET_ZONE = 4;

/** One PNG chunk: length, type, data and CRC. */
export function pngChunk(type: string, data: Uint8Array): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'ascii');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
}

/** A greyscale PNG (8 bits, no interlace) of a square grid of modules, `scale` pixels each. */
function gridPng(grid: readonly boolean[][], scale: number): Buffer {
  const size = grid.length;
  const px = (size + 2 * QUIET_ZONE) * scale;
  const rows: Buffer[] = [];
  for (let y = 0; y < px; y++) {
    const row = Buffer.alloc(px + 1); // filter byte 0, then one grey byte per pixel
    const gy = Math.floor(y / scale) - QUIET_ZONE;
    for (let x = 0; x < px; x++) {
      const gx = Math.floor(x / scale) - QUIET_ZONE;
      row[x + 1] = grid[gy]?.[gx] ? 0 : 255;
    }
    rows.push(row);
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(px, 0);
  header.writeUInt32BE(px, 4);
  header.writeUInt8(8, 8); // bit depth
  header.writeUInt8(0, 9); // greyscale
  return Buffer.concat([
    PNG_SIGNATURE,
    pngChunk('IHDR', header),
    pngChunk('IDAT', deflateSync(Buffer.concat(rows))),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/**
 * A PNG of a real QR code holding `text` (level M, a quiet zone of four modules, `scale` pixels
 * per module): what the fake gateway sends in channel.qr_update, so a phone or a decoder reads it.
 */
export function qrPng(text: string, scale = 6): Buffer {
  return gridPng(encodeQr(text).modules, scale);
}
