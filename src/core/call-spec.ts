import type { Surface } from '../schemas/constants.js';

/** One call as the resources describe it: no HTTP detail beyond method, path, query, body. */
export interface CallSpec {
  /** Which API the call goes to: v2 (the token) or v3 (the API key). */
  surface: Surface;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Path below the base address, e.g. `/v2/messages`. */
  path: string;
  query?: Record<string, string>;
  body?: unknown;
  /** Where a send goes (ids and kinds only: no text, no phone), for the diagnostics channels. */
  destination?: { chatType: string | undefined; channelId: string | undefined };
}

/** A path below the base address, without its leading slash (ky's prefix adds one). */
export const relativePath = (path: string): string => path.replace(/^\/+/, '');

/**
 * The full address of `path` below `base`, as errors and diagnostics report it (credentials
 * travel in headers, never here).
 */
export function addressOf(base: string, path: string, query?: Record<string, string>): string {
  const search = query ? `?${new URLSearchParams(query)}` : '';
  return `${base.replace(/\/+$/, '')}/${relativePath(path)}${search}`;
}
