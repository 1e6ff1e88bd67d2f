// Asking for a secret on the terminal (the messenger's 2FA password): nothing echoed on a TTY,
// one line of standard input otherwise.
import { StringDecoder } from 'node:string_decoder';
import { onAbort } from '../internal/on-abort.js';

/** The longest answer read: a 2FA password is far shorter. */
export const MAX_ANSWER_CHARS = 1024;

/** Ctrl-C (or Ctrl-D on an empty answer) in the prompt, or standard input ended before a line. */
export class PromptCancelledError extends Error {
  override name = 'PromptCancelledError';
}

/** The input the prompt reads: process.stdin, or a test's stream. */
export type PromptInput = NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?(raw: boolean): unknown };

/** Where the question is written (standard error, so --json output stays clean). */
export interface PromptOutput {
  write(text: string): unknown;
}

/** Applies one typed character on a raw terminal; returns 'done', 'cancel' or the new answer. */
function typed(answer: string, char: string): string | { end: 'done' | 'cancel' } {
  if (char === '\r' || char === '\n') return { end: 'done' };
  if (char === '\u0003' || (char === '\u0004' && answer === '')) return { end: 'cancel' };
  if (char === '\u007f' || char === '\b') return answer.slice(0, -1);
  if (char < ' ') return answer; // other control characters are ignored
  return answer.length < MAX_ANSWER_CHARS ? answer + char : answer;
}

/**
 * Writes `question` and reads the answer: on a TTY in raw mode, nothing echoed (backspace works,
 * Ctrl-C cancels, keys that send escape sequences type nothing); otherwise one line of the input.
 * Rejects with {@link PromptCancelledError} on Ctrl-C or when the input ends first, and with
 * `signal.reason` when `signal` aborts (a signal to the process, or the flow's time-out: the
 * terminal is given back, nothing waits on the input). Answers are cut at {@link MAX_ANSWER_CHARS}.
 */
export function askSecret(
  question: string,
  input: PromptInput = process.stdin,
  output: PromptOutput = process.stderr,
  signal?: AbortSignal,
): Promise<string> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  output.write(question);
  const raw = input.isTTY === true && typeof input.setRawMode === 'function';
  return new Promise((resolve, reject) => {
    let answer = '';
    let inEscape: '' | 'esc' | 'sequence' = '';
    const decoder = new StringDecoder('utf8'); // a character split across chunks stays whole
    let cancelAbort: (() => void) | undefined;
    const finish = (error?: Error) => {
      cancelAbort?.();
      input.off('data', onData);
      input.off('end', onEnd);
      if (raw) input.setRawMode?.(false);
      input.pause();
      output.write('\n');
      if (error) reject(error);
      else resolve(answer);
    };
    const onData = (chunk: Buffer | string) => {
      const text = typeof chunk === 'string' ? chunk : decoder.write(chunk);
      if (!raw) {
        const end = text.indexOf('\n');
        answer = (answer + (end === -1 ? text : text.slice(0, end))).slice(0, MAX_ANSWER_CHARS);
        if (end === -1) return;
        answer = answer.replace(/\r$/, '');
        finish();
        // the next lines stay in the input for the next question (a refused password asks again)
        if (end + 1 < text.length) input.unshift(Buffer.from(text.slice(end + 1)));
        return;
      }
      for (const char of text) {
        // a key that sends an escape sequence (arrows, Delete, F-keys, Alt+key, paste markers)
        // types nothing: ESC and one character, or ESC '[' / 'O' up to a final byte from @ to ~;
        // a control character (Enter, Ctrl-C) ends it and counts
        if (char < ' ' && char !== '\u001b') inEscape = '';
        if (inEscape === 'esc') {
          inEscape = char === '[' || char === 'O' ? 'sequence' : '';
          continue;
        }
        if (inEscape === 'sequence') {
          if (char >= '@' && char <= '~') inEscape = '';
          continue;
        }
        if (char === '\u001b') {
          inEscape = 'esc';
          continue;
        }
        const next = typed(answer, char);
        if (typeof next === 'string') answer = next;
        else
          return finish(
            next.end === 'cancel' ? new PromptCancelledError('cancelled at the password prompt') : undefined,
          );
      }
    };
    const onEnd = () =>
      answer && !raw
        ? finish()
        : finish(new PromptCancelledError('standard input ended before the password'));
    if (signal) cancelAbort = onAbort(signal, (reason) => finish(reason as Error));
    if (raw) input.setRawMode?.(true);
    input.on('data', onData);
    input.on('end', onEnd);
    input.resume();
  });
}
