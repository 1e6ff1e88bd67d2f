import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { askSecret, MAX_ANSWER_CHARS, PromptCancelledError } from '../../src/cli/prompt.js';

/** A stream standing for a terminal: raw mode recorded, nothing echoed by it. */
function terminal() {
  const input = Object.assign(new PassThrough(), {
    isTTY: true,
    modes: [] as boolean[],
    setRawMode(raw: boolean) {
      input.modes.push(raw);
    },
  });
  let written = '';
  return { input, output: { write: (t: string) => (written += t) }, written: () => written };
}

describe('askSecret', () => {
  it('on a terminal: raw mode on then off, backspace edits, nothing but the question written', async () => {
    const t = terminal();
    const answer = askSecret('password: ', t.input, t.output);
    t.input.write('abx\u007fc\r');
    expect(await answer).toBe('abc');
    expect(t.input.modes).toEqual([true, false]);
    expect(t.written()).toBe('password: \n');
  });

  it('on a terminal: the keys that send escape sequences (arrows, Home, F-keys, Alt+key) add nothing', async () => {
    const t = terminal();
    const answer = askSecret('password: ', t.input, t.output);
    // left arrow (CSI D), up in application mode (SS3 A), Delete (CSI 3 ~), Alt+x, a bracketed paste
    t.input.write('ab\u001b[Dc\u001bOAd\u001b[3~e\u001bxf\u001b[200~gh\u001b[201~\r');
    expect(await answer).toBe('abcdefgh');
    // Esc then Ctrl-C still cancels
    const again = askSecret('password: ', t.input, t.output);
    t.input.write('a\u001b\u0003');
    await expect(again).rejects.toThrow(PromptCancelledError);
  });

  it('Ctrl-C at the prompt cancels (raw mode turns it into a character, not a signal)', async () => {
    const t = terminal();
    const answer = askSecret('password: ', t.input, t.output);
    t.input.write('ab\u0003');
    await expect(answer).rejects.toThrow(PromptCancelledError);
    expect(t.input.modes).toEqual([true, false]);
  });

  it(`keeps at most ${MAX_ANSWER_CHARS} characters`, async () => {
    const t = terminal();
    const answer = askSecret('password: ', t.input, t.output);
    t.input.write(`${'z'.repeat(MAX_ANSWER_CHARS + 50)}\r`);
    expect(await answer).toHaveLength(MAX_ANSWER_CHARS);
  });

  it('without a terminal: one line of the input; an input that ends first cancels', async () => {
    const line = new PassThrough();
    const answer = askSecret('password: ', line, { write: () => true });
    line.end('s3cret\r\nnext line\n');
    expect(await answer).toBe('s3cret');
    expect(await askSecret('again: ', line, { write: () => true })).toBe('next line');
    const empty = new PassThrough();
    const none = askSecret('password: ', empty, { write: () => true });
    empty.end();
    await expect(none).rejects.toThrow(/ended before the password/);
  });

  it("an abort (a signal, the flow's time-out) ends the prompt: rejects with its reason, raw mode off, input let go", async () => {
    const t = terminal();
    const stop = new AbortController();
    const answer = askSecret('password: ', t.input, t.output, stop.signal);
    t.input.write('ab');
    stop.abort(new Error('interrupted (SIGTERM)'));
    await expect(answer).rejects.toThrow('interrupted (SIGTERM)');
    expect(t.input.modes).toEqual([true, false]);
    expect(t.input.listenerCount('data')).toBe(0);
    await expect(askSecret('again: ', t.input, t.output, stop.signal)).rejects.toThrow('SIGTERM');
  });
});
