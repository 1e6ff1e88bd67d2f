import { GatewayError } from '../core/errors.js';

// An error reply of Redis starts with its name in capitals ("WRONGTYPE Operation against…",
// "ERR user_script:1: …"); a client's own failures (a closed socket, ECONNREFUSED, a retry limit)
// never do. The class of the thrown object says nothing: ioredis 6 and node-redis 6 both throw
// a `SimpleError` for a reply, so the name is read from the message.
const REPLY = /^([A-Z][A-Z_-]{1,31})(?= |$)/;

// Replies that mean "not now, try again soon": the node is loading, busy with a script, the
// cluster is failing over. Retryable, like an unreachable Redis.
const TRANSIENT = new Set([
  'LOADING',
  'BUSY',
  'TRYAGAIN',
  'CLUSTERDOWN',
  'MASTERDOWN',
  'READONLY',
  'MOVED',
  'ASK',
]);

// ioredis gives up following a cluster's redirections (MOVED, ASK, TRYAGAIN; 16 by default) with
// an error of its own quoting the last reply: a cluster moving slots or failing over, not a refusal.
const GAVE_UP = /^Too many Cluster redirections\. Last error: (?:\w+: )?([A-Z][A-Z_-]{1,31})(?= |$)/;

// What an operator does about a refusal, for the names that have one clear cause.
const HINTS: Record<string, string> = {
  WRONGTYPE:
    'a key under this prefix holds another type: another program writes there, give the SDK its own prefix',
  NOPERM:
    'the Redis user lacks a command or key the SDK needs (EVALSHA, EVAL, GET, SET, DEL, SUBSCRIBE and the prefix’s keys)',
  NOAUTH: 'the Redis connection is not authenticated',
  OOM: 'Redis reached its maxmemory and refuses writes',
  CROSSSLOT: 'the keys of one call are in different cluster slots',
  ERR: 'see the cause',
};

/** The name of a Redis error reply (`WRONGTYPE`, `NOPERM`, `ERR`…), or undefined for a client's own failure. */
export function redisErrorName(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  return REPLY.exec(error.message)?.[1];
}

/**
 * Turns whatever a Redis client threw into a GatewayError that says what failed: Redis refusing
 * (`retryable: false`, the reply's name in the message, the reply as `cause`), Redis busy or
 * failing over (retryable, named), or Redis unreachable (retryable). Never a key or a value.
 */
export function toGatewayError(error: unknown, what: string): GatewayError {
  if (error instanceof GatewayError) return error;
  const last = error instanceof Error ? GAVE_UP.exec(error.message)?.[1] : undefined;
  if (last !== undefined) {
    return new GatewayError(
      `Redis is unavailable for now: ${what} failed (${last}, after the client's last redirection); try again`,
      { retryable: true, cause: error },
    );
  }
  const name = redisErrorName(error);
  if (name !== undefined && TRANSIENT.has(name)) {
    return new GatewayError(`Redis is unavailable for now: ${what} failed (${name}); try again`, {
      retryable: true,
      cause: error,
    });
  }
  if (name !== undefined) {
    const hint = HINTS[name] ?? 'see the cause';
    return new GatewayError(`Redis refused ${what} (${name}): ${hint}`, { cause: error });
  }
  const kind = error instanceof Error ? error.name : 'error';
  return new GatewayError(`Redis is unreachable: ${what} failed (${kind})`, {
    retryable: true,
    cause: error,
  });
}
