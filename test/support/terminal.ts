// A real terminal for a test: tmux on a private socket (one per test file), its windows read as a
// person sees them. Kill the server at the end (`terminal.close()`).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A private tmux server: its command line, a window's screen, and a wait for what it shows. */
export function terminal(name: string) {
  const socket = `mgsdk-${name}-${process.pid}`;
  const tmux = (...args: string[]) =>
    run('tmux', ['-u', '-L', socket, ...args], { env: { ...process.env, LANG: 'C.UTF-8' } });
  const screen = async (window: string) => (await tmux('capture-pane', '-p', '-t', window)).stdout;
  /**
   * The window's screen once `pattern` is on it, polled every 50 ms. `ms` is only a safety net
   * (a bin compiled from source takes seconds to start on a busy machine): past it the error shows
   * the screen.
   */
  const waitFor = async (window: string, pattern: RegExp, ms = 90_000): Promise<string> => {
    const end = Date.now() + ms;
    for (;;) {
      const text = await screen(window);
      if (pattern.test(text)) return text;
      if (Date.now() > end) throw new Error(`not on the screen after ${ms} ms: ${pattern}\n${text}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const close = () =>
    tmux('kill-server').then(
      () => {},
      () => {},
    );
  return { tmux, screen, waitFor, close };
}
