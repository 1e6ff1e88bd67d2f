// A QR code's picture turned into text a phone camera reads from a terminal: the modules found in
// the PNG, then printed two rows per line with half blocks.
import type { GreyImage } from './png-decode.js';

/** Light modules printed around the code (a terminal's margin is dark, so the zone is drawn). */
export const TERMINAL_QUIET_ZONE = 2;

/** A picture in which no QR code was found where one was expected. */
export class QrNotFoundError extends Error {
  override name = 'QrNotFoundError';
}

/** Where dark pixels are: below the middle of the darkest and lightest pixel. */
function darkTest(image: GreyImage): (x: number, y: number) => boolean {
  let min = 255;
  let max = 0;
  for (const v of image.light) {
    if (v < min) min = v;
    if (v > max) max = v;
  }
  if (max - min < 64) throw new QrNotFoundError('the QR picture has no contrast: no modules to read');
  const threshold = (min + max) / 2;
  return (x, y) => (image.light[y * image.width + x] as number) < threshold;
}

/** The first dark pixel, scanning rows from the top: the top-left corner of the top-left finder. */
function topLeft(image: GreyImage, dark: (x: number, y: number) => boolean): { x: number; y: number } {
  for (let y = 0; y < image.height; y++) {
    for (let x = 0; x < image.width; x++) if (dark(x, y)) return { x, y };
  }
  throw new QrNotFoundError('the QR picture is blank');
}

/**
 * The modules of the QR code in a picture (true = dark): the module size from the top-left finder
 * pattern's run of 7 dark modules, the symbol's width from its top row, each module sampled at its
 * centre. The picture must be upright and unskewed, as the service's QR is.
 * @throws QrNotFoundError when no QR code of 21 to 177 modules is found.
 */
export function qrModules(image: GreyImage): boolean[][] {
  const dark = darkTest(image);
  const corner = topLeft(image, dark);
  const runFrom = (y: number) => {
    let x = corner.x;
    while (x < image.width && dark(x, y)) x++;
    return x - corner.x;
  };
  const firstRun = runFrom(corner.y);
  // measure again across the middle of the first module row, past any soft edge
  const row = Math.min(image.height - 1, corner.y + Math.floor(firstRun / 14));
  const finder = runFrom(row);
  if (finder < 7) throw new QrNotFoundError('no finder pattern at the top left of the QR picture');
  let right = image.width - 1;
  while (right > corner.x && !dark(right, row)) right--;
  const count = Math.round(((right - corner.x + 1) * 7) / finder);
  if (count < 21 || count > 177 || (count - 17) % 4 !== 0)
    throw new QrNotFoundError(`the QR picture measures ${count} modules across; a QR code has 21, 25, … 177`);
  const module = (right - corner.x + 1) / count;
  if (corner.y + count * module > image.height + module / 2)
    throw new QrNotFoundError('the QR picture is cut off at the bottom');
  return Array.from({ length: count }, (_, my) =>
    Array.from({ length: count }, (_, mx) => {
      const x = Math.min(image.width - 1, Math.floor(corner.x + (mx + 0.5) * module));
      const y = Math.min(image.height - 1, Math.floor(corner.y + (my + 0.5) * module));
      return dark(x, y);
    }),
  );
}

/** Half blocks by (top light, bottom light). */
const GLYPH = [
  [' ', '▄'],
  ['▀', '█'],
] as const;

/**
 * The QR code as lines of half blocks (▀ ▄ █ and space), two module rows per line, with a quiet
 * zone: a painted half is a light module, so the code reads right on a dark terminal. With
 * `colour`, each line sets white on black first, so it reads right on a light terminal too.
 */
export function halfBlockLines(modules: readonly boolean[][], colour = false): string[] {
  const size = modules.length;
  const q = TERMINAL_QUIET_ZONE;
  const light = (x: number, y: number) => !modules[y - q]?.[x - q];
  const lines: string[] = [];
  for (let y = 0; y < size + 2 * q; y += 2) {
    let line = '';
    for (let x = 0; x < size + 2 * q; x++) {
      const bottom = y + 1 < size + 2 * q ? light(x, y + 1) : true;
      line += GLYPH[light(x, y) ? 1 : 0][bottom ? 1 : 0];
    }
    lines.push(colour ? `\x1b[97;40m${line}\x1b[0m` : line);
  }
  return lines;
}
