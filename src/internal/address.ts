/**
 * An address with its user and password and every query value replaced by `…`: subscribed URLs
 * carry secrets (a `secret` or key in the query, basic auth before the host).
 */
export function maskedAddress(address: string): string {
  const start = address.indexOf('://') + 3;
  const hostEnd = address.slice(start).search(/[/?#]/);
  const authority = hostEnd < 0 ? address.slice(start) : address.slice(start, start + hostEnd);
  const user = start > 2 ? authority.lastIndexOf('@') : -1;
  const shown = user < 0 ? address : `${address.slice(0, start)}…${address.slice(start + user)}`;
  const at = shown.indexOf('?');
  if (at < 0) return shown;
  const keys = shown
    .slice(at + 1)
    .split('&')
    .map((pair) => `${pair.split('=')[0]}=…`);
  return `${shown.slice(0, at)}?${keys.join('&')}`;
}
