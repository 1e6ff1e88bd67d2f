/**
 * Shared request objects of the spec (Resources): chat types, transports, recipient, attachment.
 * @module
 */
import * as z from 'zod/mini';
import { CHAT_TYPES, TRANSPORTS } from './constants.js';
import { ALWAYS } from './lenient.js';

export { CHAT_TYPES, TRANSPORTS };

/** A chat type a message can be sent to. */
export type ChatType = (typeof CHAT_TYPES)[number];
/** Schema of {@link ChatType}. */
export const chatType = z.enum(CHAT_TYPES, { error: `chat_type must be one of ${CHAT_TYPES.join(', ')}` });

/** The kind of a channel. */
export type Transport = (typeof TRANSPORTS)[number];
/** Schema of {@link Transport}. */
export const transport = z.enum(TRANSPORTS, { error: `transport must be one of ${TRANSPORTS.join(', ')}` });

/** A non-empty string (ids, tokens, codes). */
export const nonEmpty = () =>
  z.string({ error: 'must be a string' }).check(z.minLength(1, { error: 'must not be empty' }));

/** Digits only, international format without `+` (E.164: at most 15 digits). */
export const digitsOnly = () =>
  z
    .string({ error: 'must be a string' })
    .check(
      z.regex(/^\d{1,15}$/, { error: 'digits only, international format without + (at most 15 digits)' }),
    );

/** An absolute http(s) address. */
export const httpUrl = () =>
  z.string({ error: 'must be a string' }).check(
    z.refine(
      (v) => {
        try {
          const u = new URL(v);
          return u.protocol === 'http:' || u.protocol === 'https:';
        } catch {
          return false;
        }
      },
      { error: 'must be an absolute http(s) URL' },
    ),
  );

/**
 * Largest file the service sends (spec: Limits — 50 MB). Which megabyte the spec means is not
 * shown; 50 MiB is the looser reading, so no file the service accepts is refused before sending.
 */
export const MAX_FILE_BYTES = 50 * 1024 * 1024;

/** A file to send (Resources → Attachment). `size` in bytes; file size limit 50 MB. */
export const attachment = z.object({
  /** Direct link to the file. */
  url: httpUrl(),
  name: z.optional(z.string()),
  mimetype: z.optional(z.string()),
  /** File size in bytes; at most {@link MAX_FILE_BYTES}. */
  size: z.optional(
    z.number().check(
      z.nonnegative(),
      z.maximum(MAX_FILE_BYTES, {
        error: 'file size: at most 50 MB (larger files fail with TOO_BIG_CONTENT)',
      }),
    ),
  ),
  /** SHA-1 hash, hex. */
  sha1: z.optional(z.string().check(z.regex(/^[0-9a-fA-F]{40}$/, { error: 'SHA-1: 40 hex digits' }))),
});
/** A file to send. */
export type Attachment = z.input<typeof attachment>;

/** Chat types where `phone` may identify the recipient (spec: only telegram and max). */
const PHONE_CHAT_TYPES: ReadonlySet<string> = new Set(['telegram', 'max']);

/**
 * The chat a message goes to (Resources → Recipient), with the spec's rules: `chat_id`, or for
 * telegram `username`, or for telegram/max `phone`, when `chat_id` is unknown.
 */
export const recipient = z
  .object({
    chat_type: chatType,
    chat_id: z.optional(nonEmpty()),
    /** Telegram chats only, without a leading @. */
    username: z.optional(nonEmpty()),
    /** Telegram and max chats only: international format, digits only, no plus sign. */
    phone: z.optional(digitsOnly()),
    crm_contact_name: z.optional(z.string()),
  })
  .check(
    z.superRefine((r, ctx) => {
      const issue = (path: string, message: string) =>
        ctx.addIssue({ code: 'custom', path: [path], message });
      if (typeof r !== 'object' || r === null) return;
      if (r.chat_id === undefined && r.username === undefined && r.phone === undefined) {
        issue(
          'chat_id',
          'give chat_id, or username (telegram) or phone (telegram, max) when chat_id is unknown',
        );
      }
      if (r.phone !== undefined && !PHONE_CHAT_TYPES.has(r.chat_type)) {
        issue('phone', `phone is only for telegram and max chats, not ${r.chat_type}`);
      }
      if (r.username !== undefined) {
        if (r.chat_type !== 'telegram')
          issue('username', `username is only for telegram chats, not ${r.chat_type}`);
        if (typeof r.username === 'string' && r.username.startsWith('@')) {
          issue('username', 'username without the leading @');
        }
      }
      if (typeof r.chat_id !== 'string') return;
      if ((r.chat_type === 'whatsapp' || r.chat_type === 'viber') && !/^\d+$/.test(r.chat_id)) {
        issue('chat_id', `${r.chat_type} chat_id: digits only, international number format without +`);
      }
      if (r.chat_type === 'instagram' && r.chat_id.startsWith('@')) {
        issue('chat_id', 'instagram chat_id: the account name without the leading @');
      }
    }, ALWAYS),
  );
/** The chat a message goes to. */
export type Recipient = z.input<typeof recipient>;
