/**
 * Renders a field path as `recipient.phone` or `keyboard.buttons[0].text`; an empty path (the
 * value itself) as `empty`, by default the empty string.
 */
export function formatPath(path: readonly (string | number | symbol)[], empty = ''): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out === '' ? empty : out;
}
