import { accessSync, constants } from 'node:fs';
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
