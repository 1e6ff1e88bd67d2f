import type { IncomingMessage } from 'node:http';
import type { SecretMatcher } from '../../webhooks/receive/secret-matcher.js';

/**
 * The Host values that name the fake itself: its loopback address with its port (a DNS-rebound
 * name does not). At port 80 a browser leaves the port out of Host and Origin.
 */
export function ownHosts(port: number): string[] {
  const names = ['127.0.0.1', 'localhost', '[::1]'];
  return [...names.map((name) => `${name}:${port}`), ...(port === 80 ? names : [])];
}

/**
 * Why a request to the inbox is refused, or undefined when it may pass. The page is a local tool
 * that needs no token to view, so a page elsewhere must not drive it: the Host must name the
 * fake's loopback address (a DNS-rebound name does not), and an action must come from the page
 * itself (same origin by Origin and Sec-Fetch-Site when the browser sends them, and always the
 * page's own token, which only a same-origin page can read).
 */
export function refusal(
  req: IncomingMessage,
  port: number,
  pageToken: SecretMatcher,
  action: boolean,
): string | undefined {
  const hosts = ownHosts(port);
  if (!hosts.includes(req.headers.host ?? '')) return 'the inbox answers only at its loopback address';
  if (!action) return undefined;
  const origin = req.headers.origin;
  if (origin !== undefined && !hosts.some((host) => origin === `http://${host}`)) {
    return 'cross-origin requests are refused';
  }
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') return 'cross-site requests are refused';
  const token = req.headers['x-inbox-token'];
  if (typeof token !== 'string' || !pageToken.matches(token)) return 'the page token is missing or wrong';
  return undefined;
}
