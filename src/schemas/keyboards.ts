/**
 * Interactive keyboards (spec: Resources → Keyboard): one shape per kind of channel.
 * @module
 */
import * as z from 'zod/mini';
import { httpUrl } from './common.js';
import { ALWAYS } from './lenient.js';

const utf8 = new TextEncoder();

/**
 * wapi interactive buttons. At most 10 are shown: the service takes the first 10 and ignores the
 * rest (spec: Limits), so more than 10 is not rejected.
 */
export const wapiKeyboard = z.object({
  buttons: z.array(
    z.object({
      /** At most 20 characters (spec: Limits — button text). */
      text: z.optional(
        z.string().check(z.maxLength(20, { error: 'wapi button text: at most 20 characters' })),
      ),
      type: z.optional(z.string()),
      payload: z.string({ error: 'wapi button payload is required' }),
    }),
    { error: 'wapi keyboard.buttons must be an array' },
  ),
});
/** Keyboard of a wapi (business API) message. */
export type WapiKeyboard = z.input<typeof wapiKeyboard>;

/** One button of a telegram-bot keyboard. */
export const telegramButton = z.object({
  /** At most 64 characters; required for reply buttons. */
  text: z.optional(
    z.string().check(z.maxLength(64, { error: 'telegram button text: at most 64 characters' })),
  ),
  /** Inline buttons: address opened on press. */
  url: z.optional(httpUrl()),
  /** Inline buttons: 1 to 64 bytes of UTF-8 (spec: Limits — callback_data). */
  callback_data: z.optional(
    z.string().check(
      z.refine((v) => {
        const bytes = utf8.encode(v).byteLength;
        return bytes >= 1 && bytes <= 64;
      }, 'telegram callback_data: 1 to 64 bytes of UTF-8'),
    ),
  ),
});

/** Keyboard of a telegram-bot message. */
export const telegramKeyboard = z
  .object({
    /** Keyboard kind. */
    reply_markup: z.optional(z.enum(['inline', 'reply'], { error: 'reply_markup must be inline or reply' })),
    /** true hides (does not delete) the custom keyboard after a press. */
    one_time_keyboard: z.optional(z.boolean()),
    resize_keyboard: z.optional(z.boolean()),
    selective: z.optional(z.boolean()),
    /** true removes the custom keyboard. */
    remove_keyboard: z.optional(z.boolean()),
    buttons: z.optional(z.array(telegramButton)),
  })
  .check(
    z.superRefine((k, ctx) => {
      if (k.reply_markup !== 'reply' || !Array.isArray(k.buttons)) return;
      k.buttons.forEach((b, i) => {
        if (typeof b === 'object' && b !== null && b.text === undefined) {
          ctx.addIssue({ code: 'custom', path: ['buttons', i, 'text'], message: 'reply buttons need text' });
        }
      });
    }, ALWAYS),
  );
/** Keyboard of a telegram-bot message. */
export type TelegramKeyboard = z.input<typeof telegramKeyboard>;

/** One button of a MAX-bot keyboard. */
export const maxBotButton = z
  .object({
    type: z.enum(['callback', 'link', 'message'], {
      error: 'MAX button type must be callback, link or message',
    }),
    text: z.string({ error: 'MAX button text is required' }),
    /** Required for, and only for, type callback. */
    payload: z.optional(z.string()),
    intent: z.optional(
      z.enum(['default', 'positive', 'negative'], { error: 'intent: default, positive or negative' }),
    ),
    /** Required for, and only for, type link. */
    url: z.optional(httpUrl()),
  })
  .check(
    z.superRefine((b, ctx) => {
      const issue = (path: string, message: string) =>
        ctx.addIssue({ code: 'custom', path: [path], message });
      if (!['callback', 'link', 'message'].includes(b?.type)) return; // the type's own issue says it
      if (b.type === 'callback' && b.payload === undefined)
        issue('payload', 'callback buttons need a payload');
      if (b.type !== 'callback' && b.payload !== undefined)
        issue('payload', 'payload is only for callback buttons');
      if (b.type === 'link' && b.url === undefined) issue('url', 'link buttons need a url');
      if (b.type !== 'link' && b.url !== undefined) issue('url', 'url is only for link buttons');
    }, ALWAYS),
  );

/** Keyboard of a MAX-bot message: rows of buttons (a two-dimensional array). */
export const maxBotKeyboard = z.object({
  buttons: z.array(z.array(maxBotButton, { error: 'MAX keyboard.buttons is an array of rows (arrays)' }), {
    error: 'MAX keyboard.buttons is an array of rows (arrays)',
  }),
});
/** Keyboard of a MAX-bot message. */
export type MaxBotKeyboard = z.input<typeof maxBotKeyboard>;

/** Any keyboard; which shape applies follows from the recipient's chat type. */
export type Keyboard = WapiKeyboard | TelegramKeyboard | MaxBotKeyboard;

/** The keyboard schema for a chat type, or undefined where the spec has no keyboards. */
export function keyboardFor(chatType: string): z.ZodMiniType | undefined {
  switch (chatType) {
    case 'whatsapp':
    case 'whatsgroup':
      return wapiKeyboard;
    case 'telegram':
    case 'telegroup':
      return telegramKeyboard;
    case 'max':
    case 'maxgroup':
      return maxBotKeyboard;
    default:
      return undefined;
  }
}
