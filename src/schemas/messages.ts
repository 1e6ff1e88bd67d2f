/**
 * Messages (spec: Endpoints → Messages): send, edit, delete, dump.
 * @module
 */

import * as z from 'zod/mini';
import { attachment, nonEmpty, recipient } from './common.js';
import { TEXT_LIMITS } from './constants.js';
import { type Keyboard, keyboardFor } from './keyboards.js';
import { ALWAYS, idString } from './lenient.js';

/** A wapi template to send (spec: Resources → Template). */
export const template = z.object({
  /** Id of the approved template. */
  id: nonEmpty(),
  /** Values of the template variables. */
  values: z.optional(z.array(z.string())),
  /** Only to attach payloads to buttons; button texts are not sent by the caller. */
  buttons: z.optional(
    z.array(z.object({ text: z.optional(z.string()), type: z.optional(z.string()), payload: z.string() })),
  ),
});
/** A wapi template to send. */
export type Template = z.input<typeof template>;

const CONTENT = ['text', 'attachment', 'template'] as const;
/** The spec's own error text for more than one kind of content (Endpoints → send, rule 1). */
export const MORE_THAN_ONE_CONTENT = 'Cannot provide more that one of text, attachment or template';

const sendObject = z.object({
  /** Channel to send through. */
  channel_id: nonEmpty(),
  recipient,
  quoted_message_id: z.optional(z.string()),
  text: z.optional(z.string()),
  attachment: z.optional(attachment),
  template: z.optional(template),
  keyboard: z.optional(z.looseObject({})),
  crm_user_id: z.optional(z.string()),
  /** false prevents the message from resetting the unanswered counter. */
  reset_unanswered: z.optional(z.boolean()),
});

type Ctx = z.core.$RefinementCtx;
type Unchecked = Record<string, unknown>;
const issue = (ctx: Ctx, path: (string | number)[], message: string) =>
  ctx.addIssue({ code: 'custom', path, message });

/** Spec rule 1: exactly one of text, attachment or template. */
function contentRule(m: Unchecked, ctx: Ctx) {
  const given = CONTENT.filter((k) => m[k] !== undefined);
  if (given.length > 1)
    issue(ctx, [given[1] as string], `${MORE_THAN_ONE_CONTENT} (got ${given.join(', ')})`);
  if (given.length === 0) issue(ctx, ['text'], 'one of text, attachment or template is required');
}

/** Spec: Limits — text length per chat type. */
function textLengthRule(m: Unchecked, chatType: string, ctx: Ctx) {
  const limit = TEXT_LIMITS[chatType];
  if (typeof m.text === 'string' && limit !== undefined && m.text.length > limit) {
    issue(ctx, ['text'], `text is ${m.text.length} characters, ${chatType} allows at most ${limit}`);
  }
}

/** Spec: Resources → Keyboard — the shape follows the kind of channel, known by the chat type. */
function keyboardRule(m: Unchecked, chatType: string, ctx: Ctx) {
  if (m.keyboard === undefined) return;
  const schema = keyboardFor(chatType);
  if (!schema) return issue(ctx, ['keyboard'], `keyboards are not supported for ${chatType} chats`);
  for (const i of schema.safeParse(m.keyboard).error?.issues ?? []) {
    issue(ctx, ['keyboard', ...(i.path as (string | number)[])], i.message);
  }
}

/**
 * POST /v2/messages body, with every rule of the spec checked at once. Its output is typed as
 * {@link SendMessageParams} (the rules it checks make it so), so what it gives goes straight
 * into `messages.send`.
 */
export const sendMessageParams = sendObject.check(
  z.superRefine((value, ctx) => {
    const m = value as Unchecked;
    contentRule(m, ctx);
    const recipient = m.recipient as Unchecked | null | undefined;
    const chatType = typeof recipient === 'object' && recipient !== null ? recipient.chat_type : undefined;
    if (typeof chatType !== 'string') return;
    textLengthRule(m, chatType, ctx);
    keyboardRule(m, chatType, ctx);
  }, ALWAYS),
) as unknown as z.ZodMiniType<SendMessageParams, unknown>; // the content rule makes the flat shape the exclusive union

type Without<T, K extends PropertyKey> = T & { [P in K]?: undefined };
type SendBase = Omit<z.input<typeof sendObject>, (typeof CONTENT)[number] | 'keyboard'> & {
  /** Interactive keyboard; its shape follows the recipient's chat type (wapi, telegram bot, MAX bot). */
  keyboard?: Keyboard;
};
/**
 * Body of `messages.send`: exactly one of `text`, `attachment` or `template` (spec rule 1),
 * expressed in the type so a send with two of them does not compile.
 */
export type SendMessageParams =
  | Without<SendBase & { text: string }, 'attachment' | 'template'>
  | Without<SendBase & { attachment: z.input<typeof attachment> }, 'text' | 'template'>
  | Without<SendBase & { template: z.input<typeof template> }, 'text' | 'attachment'>;

/** Answer of a send: the message was accepted; the outcome arrives in message.status_update. */
export const sendMessageResult = z.looseObject({ request_id: idString, chat_id: z.nullish(idString) });
/** Answer of a send. */
export type SendMessageResult = z.output<typeof sendMessageResult>;

/** PATCH /v2/messages/{message_id} body: text or attachment must be filled. */
export const editMessageParams = z
  .object({
    text: z.optional(z.string().check(z.maxLength(4096, 'an edit text is at most 4096 characters'))),
    attachment: z.optional(attachment),
    /** The CRM user who edits. */
    crm_user_id: z.optional(z.string()),
  })
  .check(
    z.superRefine((m, ctx) => {
      if (m.text === undefined && m.attachment === undefined) {
        ctx.addIssue({ code: 'custom', path: ['text'], message: 'an edit needs text or attachment' });
      }
    }, ALWAYS),
  );
/** Body of `messages.edit`. */
export type EditMessageParams = z.input<typeof editMessageParams>;

/** Answer of an edit or a delete. */
export const messageRef = z.looseObject({ message_id: idString, chat_id: z.nullish(idString) });
/** Answer of an edit or a delete. */
export type MessageRef = z.output<typeof messageRef>;

/** POST /v2/messages/messages_dump body: its fields are not shown in the spec. */
export const messagesDumpParams = z.record(z.string(), z.unknown());
/** Body of `messages.dump`. */
export type MessagesDumpParams = z.input<typeof messagesDumpParams>;
