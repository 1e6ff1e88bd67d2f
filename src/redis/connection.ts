import { createHash } from 'node:crypto';
import { GatewayError } from '../core/errors.js';
import { LATE, within } from '../internal/deadline.js';
import { sleep } from '../internal/sleep.js';
import { isIoRedis, isNodeRedis, isNodeRedisCluster, type RedisClientLike } from './clients.js';
import { redisErrorName, toGatewayError } from './redis-errors.js';
import { type SubscriptionListener, subscribe } from './subscription.js';

export type { IoRedisLike, NodeRedisClusterLike, NodeRedisLike, RedisClientLike } from './clients.js';

/** Options every Redis store takes. */
export interface RedisCallOptions {
  /** Longest wait for one Redis command (ms); past it the call fails with a retryable GatewayError. @default 2000 */
  timeoutMs?: number;
}

/** A Lua script, sent by its SHA-1 and loaded with EVAL when Redis does not know it yet. */
export interface Script {
  name: string;
  source: string;
  sha: string;
}

/** Declares a Lua script (the SHA-1 is computed once, here). */
export function script(name: string, source: string): Script {
  return { name, source, sha: createHash('sha1').update(source).digest('hex') };
}

const noop = () => {};

// A slot's keys move in batches of a few ms each: a short pause, many tries within a call's time.
const TRYAGAIN_PAUSE_MS = 20;

/**
 * The one internal adapter over ioredis and node-redis: commands, scripts (EVALSHA, then EVAL
 * when Redis answers NOSCRIPT) and a subscription on a connection of its own. Every command is
 * bounded by `timeoutMs`: a Redis that is down, or a client queueing commands while it
 * reconnects, never makes a call hang.
 */
export class RedisConnection {
  readonly timeoutMs: number;
  // `key`: the command's first key, which picks the node on a node-redis cluster.
  readonly #sendOnce: (args: (string | number)[], key: string | undefined) => Promise<unknown>;
  // Scripts whose source this connection has sent once (EVAL): the others go by SHA-1.
  readonly #loading = new Set<string>();

  constructor(
    readonly client: RedisClientLike,
    options: RedisCallOptions = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? 2000;
    if (isIoRedis(client)) this.#sendOnce = ([command, ...args]) => client.call(String(command), ...args);
    else if (isNodeRedisCluster(client)) {
      this.#sendOnce = (args, key) => client.sendCommand(key, false, args.map(String));
    } else if (isNodeRedis(client)) {
      this.#sendOnce = (args) => client.sendCommand(args.map(String));
    } else {
      throw new GatewayError(
        'redis: pass a connected ioredis (v5 or later) or node-redis (v4 or later) client or cluster client',
      );
    }
  }

  /**
   * Sends a command once, or again after a TRYAGAIN until `timeoutMs` passed. TRYAGAIN: the
   * command's keys are in a slot half moved to another node (some keys there, some here), and
   * Redis ran nothing, so sending it again is safe. ioredis retries it itself; node-redis, which
   * follows MOVED and ASK, hands it back.
   */
  async #send(args: (string | number)[], key: string | undefined): Promise<unknown> {
    const giveUp = Date.now() + this.timeoutMs;
    for (;;) {
      try {
        return await this.#sendOnce(args, key);
      } catch (error) {
        if (redisErrorName(error) !== 'TRYAGAIN' || Date.now() + TRYAGAIN_PAUSE_MS > giveUp) throw error;
        await sleep(TRYAGAIN_PAUSE_MS);
      }
    }
  }

  /** Sends one command whose first key is `args[1]`; `what` names it in errors. */
  command(what: string, args: (string | number)[]): Promise<unknown> {
    return this.#bounded(what, this.#send(args, args[1] === undefined ? undefined : String(args[1])));
  }

  /**
   * Runs a script: its first call on this connection sends the source (EVAL, which loads it), the
   * ones after only its SHA-1 (EVALSHA, sent after the EVAL on the same connection), falling back
   * to EVAL when Redis answers NOSCRIPT (a restart, SCRIPT FLUSH, another node of a cluster).
   * Sending the SHA-1 first on a cold start would cost every concurrent first call a NOSCRIPT
   * round trip, and a busy process answers those late.
   */
  eval(s: Script, keys: string[], args: (string | number)[]): Promise<unknown> {
    return this.#bounded(s.name, this.#script(s, keys, args));
  }

  /**
   * {@link RedisConnection.eval} for a script whose effect `undo` takes back when the call fails
   * (time-out, lost connection). The command may still run late: a client holds it while it
   * reconnects or while Redis stalls, or sends it again after NOSCRIPT. So `undo`, which must be
   * harmless to repeat, is sent twice: at once, right behind a held command and before anything
   * sent next, and again once the command itself has ended, after any resend.
   */
  evalOrUndo(
    s: Script,
    keys: string[],
    args: (string | number)[],
    undo: { script: Script; keys: string[]; args: (string | number)[] },
  ): Promise<unknown> {
    const command = this.#script(s, keys, args);
    return this.#bounded(s.name, command).catch((error: unknown) => {
      const send = () => this.eval(undo.script, undo.keys, undo.args);
      void send().catch(noop);
      void command.then(send, send).catch(noop);
      throw error;
    });
  }

  async #script(s: Script, keys: string[], args: (string | number)[]): Promise<unknown> {
    if (!this.#loading.has(s.sha)) {
      this.#loading.add(s.sha);
      return this.#send(['EVAL', s.source, keys.length, ...keys, ...args], keys[0]);
    }
    try {
      return await this.#send(['EVALSHA', s.sha, keys.length, ...keys, ...args], keys[0]);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return await this.#send(['EVAL', s.source, keys.length, ...keys, ...args], keys[0]);
    }
  }

  /**
   * Subscribes to `channel` on a connection of its own (see subscription.ts): `listener.resync`
   * is called once it is subscribed again after messages may have been missed. Resolves, once
   * subscribed, with a function that closes that connection.
   */
  subscribe(channel: string, listener: SubscriptionListener): Promise<() => void> {
    return subscribe(this.client, channel, listener, (what, promise) => this.#bounded(what, promise));
  }

  async #bounded<T>(what: string, promise: Promise<T>): Promise<T> {
    let result: T | typeof LATE;
    try {
      result = await within(promise, this.timeoutMs);
    } catch (error) {
      throw toGatewayError(error, what);
    }
    if (result === LATE) {
      throw new GatewayError(`Redis is unreachable: ${what} got no answer within ${this.timeoutMs} ms`, {
        retryable: true,
      });
    }
    return result;
  }
}
