import type { Row, SqlDriver, SqlSession } from '../sql-driver.js';

/** What the stores use of a Prisma client (7, with a driver adapter) and of its transaction client. */
interface PrismaQueryable {
  $queryRawUnsafe(query: string, ...values: unknown[]): Promise<unknown>;
}
interface PrismaLike extends PrismaQueryable {
  $transaction<T>(
    fn: (tx: PrismaQueryable) => Promise<T>,
    options?: { maxWait?: number; timeout?: number },
  ): Promise<T>;
}

/** Prisma: `$queryRawUnsafe` and an interactive `$transaction`. */
export function isPrisma(db: unknown): db is PrismaLike {
  const d = db as Partial<PrismaLike> | null;
  return typeof d?.$queryRawUnsafe === 'function' && typeof d.$transaction === 'function';
}

/** A Prisma client or transaction client (`tx` of `$transaction`): `$queryRawUnsafe`. */
export function isPrismaSession(handle: unknown): handle is PrismaQueryable {
  return typeof (handle as Partial<PrismaQueryable> | null)?.$queryRawUnsafe === 'function';
}

/** Statements through `$queryRawUnsafe` (`$1`-style parameters, as the stores write them). */
export const prismaSession = (prisma: PrismaQueryable): SqlSession => ({
  query: async (text, params = []) => (await prisma.$queryRawUnsafe(text, ...params)) as Row[],
});

// Prisma closes an interactive transaction after `timeout` (5 s by default) and waits `maxWait`
// (2 s) for a connection. The stores bound their own transactions (a worker's timeoutMs, a
// claim's lease), so Prisma's are set past any of them: at most what a timer can hold.
const UNBOUNDED = { timeout: 2_147_483_647, maxWait: 60_000 };

/**
 * Prisma: statements through `$queryRawUnsafe`, transactions through an interactive
 * `$transaction`, whose `tx` (`Prisma.TransactionClient`) the user's code gets. No LISTEN: Prisma
 * exposes no connection of its own.
 */
export function prismaDriver(prisma: PrismaLike): SqlDriver {
  return {
    ...prismaSession(prisma),
    transaction: (fn) => prisma.$transaction((tx) => fn(prismaSession(tx), tx), UNBOUNDED),
  };
}
