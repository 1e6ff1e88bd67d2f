// Runs the blocks of a guide marked `// runs: <what it needs>` (scripts/guide-blocks.ts), each as
// the reader runs it: its code written to a file of its own, run by tsx in a child process
// (block-process.ts) with the environment the reader would give it. A test file per document
// (`guideTestFile`) picks blocks by the heading they sit under, runs several in one process where
// they belong together, checks what they printed or did, and ends with a test that every marked
// block of its document was run.
import { type ChildProcess, fork } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { blocksOf, type GuideBlock, ROOT } from '../../scripts/guide-blocks.js';
import { createFakeGateway, type FakeGateway } from '../../src/testing.js';
import { freePort } from '../support/servers.js';

/** The safety net of a test that starts block processes (each compiles its blocks with tsx). */
export const BLOCK_RUN_TIMEOUT_MS = 120_000;

/** The secret every block's environment gives as WEBHOOK_SECRET. */
export const WEBHOOK_SECRET = 'guide-secret';

/** The channel the shared fake gateway holds (CHANNEL_ID), active, whatsapp. */
export const CHANNEL_ID = 'channel-1';

/** How a process of blocks ended, and what it printed. */
export interface BlockRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** A process of blocks, started. */
export interface RunningBlocks {
  /** The port given as PORT (WEBHOOK_URL is `http://127.0.0.1:<port>/hooks`). */
  port: number;
  /** Resolves once the top level of every block has run; rejects if the process ended first. */
  evaluated: Promise<void>;
  /** What it printed on standard output so far. */
  stdout(): string;
  /** Ends it (`exit`: as the runner's own `process.exit(0)`; a signal: sent to it) and waits. */
  stop(how?: 'exit' | NodeJS.Signals): Promise<BlockRun>;
  /** Resolves when it ends by itself. */
  ended: Promise<BlockRun>;
}

/** What a run adds to the environment, and which of the reader's values it prepares. */
export interface RunOptions {
  env?: Record<string, string>;
  /** `hooks` served and subscribed, with `tracker` (reader-context.ts). */
  serveHooks?: boolean;
  /** With `serveHooks`: `message` sent to this chat first; `request_id` is its request id. */
  sendTo?: string;
}

/**
 * The marked blocks of `document` and a runner for them. With `gateway`, one fake gateway for the
 * whole file (a whatsapp channel `CHANNEL_ID`), reset after each test.
 */
export function useGuide(document: string, options: { gateway?: boolean } = {}) {
  const marked = blocksOf(document).filter((block) => block.kind === 'runs');
  const ran = new Set<GuideBlock>();
  const dir = join(ROOT, '.tmp', 'guides', basename(document, '.md'));
  const running = new Set<RunningBlocks>();
  let gateway: FakeGateway | undefined;

  beforeAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    if (options.gateway) gateway = await createFakeGateway({ channels: [{ channel_id: CHANNEL_ID }] });
  });
  afterEach(async () => {
    await Promise.all([...running].map((blocks) => blocks.stop()));
    gateway?.reset();
  });
  afterAll(async () => {
    await gateway?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The marked blocks under these headings, in the order given (all of a heading's, in order). */
  function select(headings: string[]): GuideBlock[] {
    return headings.flatMap((heading) => {
      const under = marked.filter((block) => block.heading === heading);
      if (under.length === 0) throw new Error(`${document}: no block marked "// runs:" under "${heading}"`);
      return under;
    });
  }

  async function start(headings: string | string[], run: RunOptions = {}): Promise<RunningBlocks> {
    const blocks = select([headings].flat());
    const files = blocks.map((block) => {
      ran.add(block);
      const file = join(dir, `line-${block.line}.ts`);
      writeFileSync(file, `${block.code}\nexport {};\n`);
      return file;
    });
    const port = await freePort();
    const env: Record<string, string> = {
      ...readerEnvironment(),
      WEBHOOK_SECRET,
      CHANNEL_ID,
      PORT: String(port),
      WEBHOOK_URL: `http://127.0.0.1:${port}/hooks`,
      ...(gateway && {
        GATEWAY_BASE_URL: gateway.url,
        GATEWAY_TOKEN: gateway.token,
        GATEWAY_API_KEY: gateway.apiKey,
      }),
      ...(run.serveHooks && { GUIDE_HOOKS: 'serve' }),
      ...(run.sendTo && { GUIDE_SEND_TO: run.sendTo }),
      ...run.env,
    };
    const child = fork(join(import.meta.dirname, 'block-process.ts'), files, {
      cwd: ROOT,
      env,
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    const blocksRun = track(child, port, blocks);
    running.add(blocksRun);
    void blocksRun.ended.then(() => running.delete(blocksRun));
    return blocksRun;
  }

  return {
    document,
    /** The shared fake gateway (with `gateway: true`). */
    get gateway(): FakeGateway {
      if (!gateway) throw new Error('useGuide(…, { gateway: true }) gives a fake gateway');
      return gateway;
    },
    /** Starts a process of the blocks under `headings`; stop it, or the next test does. */
    start,
    /** Runs the blocks under `headings` until their top level has run, then ends the process. */
    async run(headings: string | string[], options: RunOptions = {}): Promise<BlockRun> {
      const blocks = await start(headings, options);
      await blocks.evaluated;
      return blocks.stop();
    },
    /** The last test of the file: every block of the document marked `// runs:` was run by it. */
    itRanEveryMarkedBlock() {
      it(`runs every block of ${document} marked "// runs:"`, () => {
        expect(marked.length).toBeGreaterThan(0);
        const missed = marked.filter((block) => !ran.has(block));
        expect(missed.map((block) => `${document}:${block.line} (under "${block.heading}")`)).toEqual([]);
      });
    },
  };
}

/** The test's environment without what would point a block elsewhere (credentials, addresses). */
function readerEnvironment(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value === undefined || /^(GATEWAY_|WEBHOOK_|DATABASE_URL|REDIS_URL|OTEL_)/.test(name)) continue;
    env[name] = value;
  }
  return env;
}

function track(child: ChildProcess, port: number, blocks: GuideBlock[]): RunningBlocks {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk) => (stdout += chunk));
  child.stderr?.on('data', (chunk) => (stderr += chunk));
  const ended = new Promise<BlockRun>((resolve) => {
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  const where = blocks.map((block) => `${block.document}:${block.line}`).join(', ');
  const evaluated = new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    void ended.then(({ code, signal }) =>
      reject(
        new Error(
          `the blocks at ${where} ended (${code ?? signal}) before their top level ran:\n${stdout}\n${stderr}`,
        ),
      ),
    );
  });
  evaluated.catch(() => {}); // awaited by the test; a stop before it is not an error
  return {
    port,
    evaluated,
    ended,
    stdout: () => stdout,
    async stop(how = 'exit') {
      if (child.exitCode === null && child.signalCode === null) {
        if (how === 'exit' && child.connected) child.send('exit');
        else child.kill(how === 'exit' ? 'SIGTERM' : how);
      }
      return ended;
    },
  };
}
