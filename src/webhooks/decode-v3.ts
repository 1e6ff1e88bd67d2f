import { z } from 'zod';
import type { Issue } from '../core/errors.js';
import {
  V3_STRICT,
  type V3Webhook,
  v3ChannelUpdate,
  v3CreateContact,
  v3CreateDeal,
  v3Message,
  v3Status,
  v3TemplateStatus,
} from '../schemas/events-v3.js';
import { toIssues } from '../schemas/issues.js';
import { type Decoded, isRecord } from './decode-v2.js';
import { parseTwoPass, type TwoPass, twoPass } from './two-pass.js';

// One property per kind (spec: API v3 webhook deliveries, 3); messages and statuses may share one.
const KINDS = {
  messages: 'messagesAndStatuses',
  statuses: 'messagesAndStatuses',
  createContact: 'createContact',
  createDeal: 'createDeal',
  channelsUpdates: 'channelsUpdates',
  templateStatus: 'templateStatus',
} as const;
type Kind = (typeof KINDS)[keyof typeof KINDS];

const S = V3_STRICT;
const messages = twoPass(z.array(S.v3Message).nullish(), z.array(v3Message).nullish());
const statuses = twoPass(z.array(S.v3Status).nullish(), z.array(v3Status).nullish());
const channelsUpdates = twoPass(z.array(S.v3ChannelUpdate), z.array(v3ChannelUpdate));
const createContact = twoPass(S.v3CreateContact, v3CreateContact);
const createDeal = twoPass(S.v3CreateDeal, v3CreateDeal);
const templateStatus = twoPass(S.v3TemplateStatus, v3TemplateStatus);

function parse<S extends TwoPass>(
  schemas: S,
  value: unknown,
  key: string,
  issues: Issue[],
): z.output<S['lenient']> {
  const result = parseTwoPass(schemas, value);
  if (!result.success) issues.push(...toIssues(result.error, [key]));
  return result.data as z.output<S['lenient']>;
}

function decodeKind(kind: Kind, body: Record<string, unknown>, issues: Issue[]): V3Webhook {
  switch (kind) {
    case 'messagesAndStatuses':
      return {
        api: 'v3',
        type: kind,
        messages: parse(messages, body.messages, 'messages', issues) ?? [],
        statuses: parse(statuses, body.statuses, 'statuses', issues) ?? [],
      };
    case 'createContact':
      return { api: 'v3', type: kind, createContact: parse(createContact, body.createContact, kind, issues) };
    case 'createDeal':
      return { api: 'v3', type: kind, createDeal: parse(createDeal, body.createDeal, kind, issues) };
    case 'channelsUpdates':
      return {
        api: 'v3',
        type: kind,
        channelsUpdates: parse(channelsUpdates, body.channelsUpdates, kind, issues),
      };
    case 'templateStatus':
      return {
        api: 'v3',
        type: kind,
        templateStatus: parse(templateStatus, body.templateStatus, kind, issues),
      };
  }
}

/**
 * Decodes a v3 delivery: one property per kind, `messages` and `statuses` together as one
 * `messagesAndStatuses` value (both arrays, empty when absent), and the `{ test: true }` probe.
 * A body with two kinds is an error rather than a silent choice of one.
 */
export function decodeV3(value: unknown): Decoded<V3Webhook> {
  if (!isRecord(value))
    return { ok: false, issues: [{ path: [], message: 'a v3 delivery is a JSON object' }] };
  const present: Kind[] = [];
  for (const key in KINDS) {
    const kind = KINDS[key as keyof typeof KINDS];
    if (value[key] != null && !present.includes(kind)) present.push(kind);
  }
  if (present.length === 0) {
    if (value.test === true || value.test === 'true')
      return { ok: true, webhook: { api: 'v3', type: 'test', test: true } };
    const message = `no v3 payload: expected one of ${Object.keys(KINDS).join(', ')}, or { test: true }`;
    return { ok: false, issues: [{ path: [], message }] };
  }
  if (present.length > 1) {
    return {
      ok: false,
      issues: [{ path: [], message: `one delivery carries several kinds: ${present.join(', ')}` }],
    };
  }
  const issues: Issue[] = [];
  const webhook = decodeKind(present[0] as Kind, value, issues);
  return issues.length ? { ok: false, issues } : { ok: true, webhook };
}
