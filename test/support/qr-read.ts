// Reads QR codes back in tests with jsqr (a devDependency): from a module grid, or from the
// half-block art the bin prints.
import { createRequire } from 'node:module';

/** jsqr is CommonJS (module.exports is the function): required so no interop guesses. */
const jsQR = createRequire(import.meta.url)('jsqr') as typeof import('jsqr')['default'];

/** How many pixels a module gets in the bitmap given to jsqr. */
const PX = 4;

/** Decodes a bitmap where `light(x, y)` says whether module (x, y) is light; null when unreadable. */
function decodeCells(width: number, height: number, light: (x: number, y: number) => boolean): string | null {
  const w = width * PX;
  const h = height * PX;
  const rgba = new Uint8ClampedArray(w * h * 4);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const v = light(Math.floor(x / PX), Math.floor(y / PX)) ? 255 : 0;
      rgba.fill(v, (y * w + x) * 4, (y * w + x) * 4 + 3);
      rgba[(y * w + x) * 4 + 3] = 255;
    }
  }
  return jsQR(rgba, w, h, { inversionAttempts: 'dontInvert' })?.data ?? null;
}

/** The text of a QR code given as modules (true = dark), with a quiet zone of four modules added. */
export function readModules(modules: readonly boolean[][]): string | null {
  const size = modules.length;
  return decodeCells(size + 8, size + 8, (x, y) => !modules[y - 4]?.[x - 4]);
}

/**
 * The text of a QR code printed as half blocks: each character is two modules stacked, and a
 * painted half (the terminal's light foreground) is a light module.
 */
export function readHalfBlocks(lines: readonly string[]): string | null {
  const rows = lines.map((line) => [...line]);
  const width = Math.max(...rows.map((r) => r.length));
  const top = new Set(['▀', '█']);
  const bottom = new Set(['▄', '█']);
  return decodeCells(width, rows.length * 2, (x, y) => {
    const c = rows[y >> 1]?.[x] ?? ' ';
    return (y & 1 ? bottom : top).has(c);
  });
}
