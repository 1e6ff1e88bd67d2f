import { isRecord } from '../../internal/is-record.js';
import type { Webhook } from '../decode/parse.js';
import { eventName } from './events.js';

/**
 * The context of the `messaging-gateway-sdk:webhook` channel: `api`, `kind` (the event name) and
 * `items` once the delivery is decoded; at the end `outcome` and `status` (handle only; a request
 * refused before it was admitted has them from the start, with `admitted: false`). The
 * request ids of its items (ids, never text or phones) let a tracer join a status to its send.
 */
export interface WebhookTrace {
  api?: 'v2' | 'v3';
  kind?: string;
  items?: number;
  requestIds?: string[];
  outcome?: string;
  status?: number;
  /**
   * False for a request answered before it was admitted as a delivery (refused 405, 401, 413,
   * 408; the v3 probe): it carries its `outcome` and `status` from the start, and nothing was
   * processed, so it makes no span and no duration sample, only a count.
   */
  admitted?: false;
  /** The delivery's work going on past its answer (background listeners): its trace ends with it. */
  after?: Promise<unknown>;
}

/** Fills a context with what a decoded delivery says of itself: no text, no phone. */
export function describeWebhook(trace: WebhookTrace, webhook: Webhook): WebhookTrace {
  trace.api = webhook.api;
  trace.kind = String(eventName(webhook));
  const data = (webhook as { data?: unknown }).data;
  const list = Array.isArray(data) ? data : [];
  trace.items = Array.isArray(data) ? data.length : 1;
  const ids: string[] = [];
  for (let i = 0; i < Math.min(list.length, 100); i++) {
    const item: unknown = list[i];
    if (isRecord(item) && typeof item.request_id === 'string') ids.push(item.request_id);
  }
  if (ids.length > 0) trace.requestIds = ids;
  return trace;
}
