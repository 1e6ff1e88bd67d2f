import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** A program a test needs from the system, and how a developer gets it. */
export interface SystemPart {
  /** The command looked up on PATH. */
  command: string;
  /** What the tests use it for, in a few words. */
  usedFor: string;
  /** How to install it (one line). */
  install: string;
}

/** The system parts the suite knows. */
export const PARTS = {
  redis: {
    command: 'redis-server',
    usedFor: 'the Redis stores and the three-node cluster',
    install: 'apt-get install redis-server (or brew install redis)',
  },
  chromium: {
    command: 'chromium',
    usedFor: "the fake gateway's inbox page in a headless browser",
    install: 'apt-get install chromium',
  },
  tmux: {
    command: 'tmux',
    usedFor: 'the interactive commands in a real terminal',
    install: 'apt-get install tmux',
  },
  zsh: {
    command: 'zsh',
    usedFor: "the bin's zsh completion, in a real terminal",
    install: 'apt-get install zsh',
  },
  fish: {
    command: 'fish',
    usedFor: "the bin's fish completion, in a real terminal",
    install: 'apt-get install fish',
  },
} as const satisfies Record<string, SystemPart>;

const found = new Map<string, string | undefined>();

/** The path of `command`'s executable on PATH, or undefined (looked up once per process). */
export function findCommand(command: string): string | undefined {
  if (!found.has(command)) {
    const dirs = (process.env.PATH ?? '').split(delimiter).filter(Boolean);
    const path = dirs
      .map((dir) => join(dir, command))
      .find((file) => {
        try {
          accessSync(file, constants.X_OK);
          return true;
        } catch {
          return false;
        }
      });
    found.set(command, path);
  }
  return found.get(command);
}

/** Whether `command` is an executable on PATH. */
export function hasCommand(command: string): boolean {
  return findCommand(command) !== undefined;
}

/**
 * True when a suite needing `part` must skip: the part is missing (one line says why and how to
 * get it) or `skipVariable` is set to 1. With REQUIRE_SYSTEM_TESTS=1 (CI's once-per-run pass) a
 * missing part is an error instead, so a skipped suite cannot pass unnoticed.
 */
export function skipWithout(part: SystemPart, skipVariable?: string): boolean {
  if (skipVariable && process.env[skipVariable] === '1') return true;
  if (hasCommand(part.command)) return false;
  const line = `${part.command} not found: skipping ${part.usedFor} (install: ${part.install})`;
  if (process.env.REQUIRE_SYSTEM_TESTS === '1') throw new Error(`REQUIRE_SYSTEM_TESTS=1 but ${line}`);
  console.warn(`skip: ${line}`);
  return true;
}

/** The framework matrix's own project (Express 4, Fastify 4, Koa parsers, NestJS, Next.js, Bun, Deno, workerd). */
export const MATRIX_DIR = join(import.meta.dirname, '..', 'frameworks');

/** How to install the matrix (one line). */
export const MATRIX_INSTALL = 'npm run test:frameworks, or npm ci --prefix test/frameworks';

/**
 * Whether the matrix's packages are installed: npm writes node_modules/.package-lock.json at the
 * end of an install, so it is missing after none and older than the lockfile after a change to it.
 */
export function matrixState(): 'installed' | 'missing' | 'stale' {
  const mtime = (file: string) => {
    try {
      return statSync(join(MATRIX_DIR, file)).mtimeMs;
    } catch {
      return undefined;
    }
  };
  const installed = mtime('node_modules/.package-lock.json');
  if (installed === undefined) return 'missing';
  const wanted = Math.max(mtime('package-lock.json') ?? 0, mtime('package.json') ?? 0);
  return installed >= wanted ? 'installed' : 'stale';
}

/**
 * True when the framework matrix must be left out of the run: SKIP_FRAMEWORK_TESTS=1, or its
 * packages are not installed (one line says why and how to install them). With
 * REQUIRE_SYSTEM_TESTS=1 (CI's once-per-run pass) a missing matrix is an error instead.
 */
export function skipFrameworkMatrix(): boolean {
  if (process.env.SKIP_FRAMEWORK_TESTS === '1') return true;
  const state = matrixState();
  if (state === 'installed') return false;
  const line = `the framework matrix's packages are ${state === 'missing' ? 'not installed' : 'older than test/frameworks/package-lock.json'}: skipping Express 4/5, Fastify 4/5, Koa, Hono, NestJS, Next.js, Bun, Deno and workerd (install: ${MATRIX_INSTALL})`;
  if (process.env.REQUIRE_SYSTEM_TESTS === '1') throw new Error(`REQUIRE_SYSTEM_TESTS=1 but ${line}`);
  console.warn(`skip: ${line}`);
  return true;
}
