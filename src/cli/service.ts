// What the commands for the real service share: credentials as the client takes them, --json,
// and how an error is printed (its class and message, never a credential).
import type { ParseArgsConfig } from 'node:util';
import { GatewayClient } from '../client.js';
import { GatewayError, GatewayValidationError } from '../core/errors.js';
import { addressesMasked, EXIT, forTerminal, type Io, jsonLine, UsageError } from './io.js';
import { type Options, parseOptions } from './options.js';

/** The options every command for the real service takes. */
export const SERVICE_OPTIONS = {
  token: { type: 'string' },
  'api-key': { type: 'string' },
  'base-url': { type: 'string' },
  json: { type: 'boolean' },
} as const satisfies ParseArgsConfig['options'];

/** Parses a command's arguments with the service options added. */
export function parseServiceArgs<const O extends Options>(args: string[], options: O) {
  return parseOptions(args, { ...SERVICE_OPTIONS, ...options });
}

/** A client from --token/--api-key/--base-url, else the GATEWAY_* variables (as the client reads them). */
export function clientFrom(values: { token?: unknown; 'api-key'?: unknown; 'base-url'?: unknown }) {
  const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const token = text(values.token);
  const apiKey = text(values['api-key']);
  const baseUrl = text(values['base-url']);
  const credentials = [token, apiKey].filter((v): v is string => v !== undefined && v !== '');
  try {
    const client = new GatewayClient({
      ...(token !== undefined && { token }),
      ...(apiKey !== undefined && { apiKey }),
      ...(baseUrl !== undefined && { baseUrl }),
      maxRetries: 0,
      logLevel: 'off',
    });
    return { client, credentials };
  } catch (error) {
    throw new UsageError(scrub((error as Error).message, credentials));
  }
}

/** The text with every credential replaced by `***` (the SDK's messages hold none; this is a second lock). */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of [...secrets, process.env.GATEWAY_TOKEN, process.env.GATEWAY_API_KEY]) {
    if (secret && secret.length >= 4) out = out.split(secret).join('***');
  }
  return out;
}

/**
 * Runs one call of a command for the real service: prints the error's class and message (and,
 * with --json, `{ ok: false, error }`) and exits 1 when the service said no, 2 when the SDK
 * refused the input before sending. `known()` gives what the command had learnt when it failed
 * (a send's `request_id`): printed beside the error, and in the JSON document beside `error`.
 */
export async function callService(
  io: Io,
  json: boolean | undefined,
  credentials: readonly string[],
  call: () => Promise<number>,
  known: () => Record<string, string> = () => ({}),
): Promise<number> {
  try {
    return await call();
  } catch (error) {
    if (!(error instanceof GatewayError)) throw error;
    const message = addressesMasked(scrub(error.message, credentials));
    const status = (error as { status?: unknown }).status;
    const { code, reason, channelId } = error as { code?: unknown; reason?: unknown; channelId?: unknown };
    if (json) {
      const described = {
        class: error.name,
        message,
        ...(status !== undefined && { status }),
        ...(code !== undefined && { code }),
        ...(reason !== undefined && { reason }),
        ...(channelId !== undefined && { channelId }),
      };
      io.out(jsonLine({ ok: false, ...known(), error: described }));
    } else {
      const beside = Object.entries(known()).map(([key, value]) => ` (${key} ${value})`);
      io.err(forTerminal(`${error.name}: ${message}${beside.join('')}`));
    }
    return error instanceof GatewayValidationError ? EXIT.usage : EXIT.failed;
  }
}

/**
 * Prints a JSON document, or the text lines with their control characters shown, not obeyed
 * (the lines hold values from the service: a channel's name, a subscription's address); either
 * way an address's query values (a receiver's secret) are masked.
 */
export function print(io: Io, json: boolean | undefined, data: unknown, lines: () => string[]): void {
  if (json) io.out(jsonLine(data));
  else for (const line of lines()) io.out(forTerminal(addressesMasked(line)));
}
