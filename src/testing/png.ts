import { crc32, deflateSync } from 'node:zlib';

/** The 7×7 finder square of a QR code at (x, y). */
function finder(grid: boolean[][], x: number, y: number): void {
  for (let i = 0; i < 7; i++) {
    for (let j = 0; j < 7; j++) {
      const ring = Math.max(Math.abs(i - 3), Math.abs(j - 3));
      (grid[y + i] as boolean[])[x + j] = ring !== 2;
    }
  }
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'ascii');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
}

/**
 * A real PNG that looks like a QR code (finder squares and a pattern seeded by `seed`): what the
 * fake gateway sends in channel.qr_update. It is not a scannable QR code.
 */
export function qrLikePng(seed: string, scale = 6): Buffer {
  const size = 25;
  const grid = Array.from({ length: size }, () => new Array<boolean>(size).fill(false));
  let h = 2166136261;
  for (const c of seed) h = Math.imul(h ^ c.charCodeAt(0), 16777619);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      h = Math.imul(h ^ (x * 31 + y), 16777619);
      (grid[y] as boolean[])[x] = (h >>> 28) % 2 === 0;
    }
  }
  finder(grid, 0, 0);
  finder(grid, size - 7, 0);
  finder(grid, 0, size - 7);
  const px = (size + 4) * scale; // with a quiet zone of 2 modules
  const rows: Buffer[] = [];
  for (let y = 0; y < px; y++) {
    const row = Buffer.alloc(px + 1); // filter byte 0, then one grey byte per pixel
    for (let x = 0; x < px; x++) {
      const gx = Math.floor(x / scale) - 2;
      const gy = Math.floor(y / scale) - 2;
      const dark = gx >= 0 && gy >= 0 && gx < size && gy < size && (grid[gy] as boolean[])[gx];
      row[x + 1] = dark ? 0 : 255;
    }
    rows.push(row);
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(px, 0);
  header.writeUInt32BE(px, 4);
  header.writeUInt8(8, 8); // bit depth
  header.writeUInt8(0, 9); // greyscale
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
