import type { Issue } from '../core/errors.js';
import { formatPath } from '../internal/format-path.js';
import { safeParseWebhook, type Webhook } from '../webhooks/decode/parse.js';
import {
  EXIT,
  forTerminal,
  InputTooLargeError,
  type Io,
  printable,
  readInput,
  terminalSafeJson,
  UsageError,
} from './io.js';
import { parseOptions } from './options.js';

/** Each item of a decoded delivery, named by its path in the body. */
function itemsOf(webhook: Webhook): [string, unknown][] {
  const list = (key: string, values: readonly unknown[]): [string, unknown][] =>
    values.map((value, i) => [`${key}[${i}]`, value]);
  if (webhook.api === 'v2') return list('data', webhook.data);
  switch (webhook.type) {
    case 'messagesAndStatuses':
      return [...list('messages', webhook.messages), ...list('statuses', webhook.statuses)];
    case 'channelsUpdates':
      return list('channelsUpdates', webhook.channelsUpdates);
    case 'createContact':
      return [['createContact', webhook.createContact]];
    case 'createDeal':
      return [['createDeal', webhook.createDeal]];
    case 'templateStatus':
      return [['templateStatus', webhook.templateStatus]];
    case 'test':
      return [];
    case 'unknown':
      return webhook.unknownKinds.map((kind) => [kind, webhook.body[kind]]);
  }
}

/** `v2 message.add`, `v2 unknown event "x.y"`, `v3 messagesAndStatuses`. */
function kindOf(webhook: Webhook): string {
  if (webhook.api === 'v3') {
    return webhook.type === 'unknown'
      ? `v3 unknown kind ${webhook.unknownKinds.join(', ')}`
      : `v3 ${webhook.type}`;
  }
  return webhook.event === 'unknown'
    ? `v2 unknown event ${JSON.stringify(webhook.unknownEvent)}`
    : `v2 ${webhook.event}`;
}

/** Items a lenient decoder set aside (`rejected`, when the decoder reports them). */
function rejectedOf(webhook: Webhook): { index: number; issues: Issue[] }[] {
  const rejected = (webhook as { rejected?: unknown }).rejected;
  return Array.isArray(rejected) ? rejected : [];
}

/** The --json document of a decoded delivery (each item printed on its own, deep ones marked). */
function jsonOf(webhook: Webhook, items: [string, unknown][], rejected: unknown[]): string {
  const { api } = webhook;
  const kind = api === 'v2' ? webhook.event : webhook.type;
  const listed = items.map(([path, value]) => `{"path":${JSON.stringify(path)},"value":${printable(value)}}`);
  const rest = `"rejected":${printable(rejected)}`;
  return `{"ok":true,"api":"${api}","kind":${JSON.stringify(kind)},"items":[${listed.join(',')}],${rest}}`;
}

/** The options of `decode`. */
export const DECODE_OPTIONS = { json: { type: 'boolean' } } as const;

/** `messaging-gateway decode [file] [--json]`. */
export async function decode(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseOptions(args, DECODE_OPTIONS);
  const file = positionals[0];
  const input = await readInput(file, io).catch((error: { code?: string }) => {
    if (error instanceof InputTooLargeError) throw error;
    throw new UsageError(`cannot read ${file}: ${error.code ?? 'unreadable'}`);
  });
  const result = safeParseWebhook(input);
  // Text lines hold the delivery's own keys and values: shown, never obeyed by the terminal.
  const say = (line: string) => io.out(forTerminal(line));
  if (!result.success) {
    const issues = result.error.issues;
    if (values.json) io.out(terminalSafeJson(JSON.stringify({ ok: false, issues })));
    else {
      say(`not a valid delivery: ${issues.length} issue${issues.length === 1 ? '' : 's'}`);
      sayIssues(issues, say);
    }
    return EXIT.failed;
  }
  const webhook = result.data;
  const items = itemsOf(webhook);
  const rejected = rejectedOf(webhook);
  if (values.json) {
    io.out(terminalSafeJson(jsonOf(webhook, items, rejected)));
    return EXIT.ok;
  }
  say(`${kindOf(webhook)} (${items.length} item${items.length === 1 ? '' : 's'})`);
  for (const [path, item] of items) say(`${path}: ${printable(item)}`);
  for (const r of rejected) {
    say(`rejected item ${r.index}:`);
    sayIssues(r.issues, say);
  }
  return EXIT.ok;
}

/** One line per issue, by path. */
function sayIssues(issues: readonly Issue[], say: (line: string) => void): void {
  for (const issue of issues) say(`  ${formatPath(issue.path, '(body)')}: ${issue.message}`);
}
