import { sleep } from '../internal/sleep.js';
import {
  type IoRedisLike,
  isIoRedis,
  isNodeRedisCluster,
  type NodeRedisClusterLike,
  type NodeRedisLike,
  type RedisClientLike,
} from './clients.js';

/** What a subscription calls. */
export interface SubscriptionListener {
  /** A message on the channel. */
  message(message: string): void;
  /** The subscription is active again after a time when messages may have been missed. */
  resync(): void;
}

/** Bounds a Redis call in time (the caller's `timeoutMs`), naming it in the error. */
export type Bound = <T>(what: string, promise: Promise<T>) => Promise<T>;

const noop = () => {};

// Pauses before each new connection once one ended for good: from 50 ms, doubling, up to 2 s.
const FIRST_PAUSE_MS = 50;
const LONGEST_PAUSE_MS = 2000;

/**
 * Subscribes to `channel` on a connection the SDK opens for it, through the client's public API
 * only. Resolves, once subscribed, with a function that closes that connection.
 */
export function subscribe(
  client: RedisClientLike,
  channel: string,
  listener: SubscriptionListener,
  bound: Bound,
): Promise<() => void> {
  return isIoRedis(client)
    ? subscribeIoRedis(client, channel, listener, bound)
    : subscribeNodeRedis(client as NodeRedisLike | NodeRedisClusterLike, channel, listener, bound);
}

/**
 * ioredis: a plain connection, the client's own `duplicate()`, or for a `Cluster` the
 * `duplicate()` of one of its nodes (a PUBLISH on any node of a cluster reaches the subscribers
 * of every node). The SDK owns that connection, so it sees its events: 'ready' after a reconnect
 * (ioredis subscribes again first), and 'end' once it is gone for good (a cluster's node
 * connections never retry), when another one is opened, on any node, and subscribed.
 */
async function subscribeIoRedis(
  client: IoRedisLike,
  channel: string,
  listener: SubscriptionListener,
  bound: Bound,
): Promise<() => void> {
  let closed = false;
  let current: IoRedisLike | undefined;

  const open = async (): Promise<unknown> => {
    await clusterReady(client);
    const nodes = client.isCluster === true ? (client.nodes?.('all') ?? []) : [client];
    const sub = nodes[Math.floor(Math.random() * nodes.length)]?.duplicate();
    current = sub;
    if (!sub) return Promise.reject(new Error('the cluster client knows no node yet'));
    let active = false;
    sub.on('error', noop); // a lost connection shows as timeouts and a resync, not as a crash
    sub.on('message', (from: string, message: string) => from === channel && listener.message(message));
    // ioredis subscribes again in its own 'ready' handler, which runs before this one: a PING
    // queued behind that SUBSCRIBE resolves once the subscription is active.
    sub.on('ready', () => active && void sub.ping().then(() => listener.resync(), noop));
    sub.on('end', () => active && !closed && void reopen());
    return sub.subscribe(channel).then(() => {
      active = true;
    });
  };

  const reopen = async (): Promise<void> => {
    for (let pause = FIRST_PAUSE_MS; !closed; pause = Math.min(pause * 2, LONGEST_PAUSE_MS)) {
      await sleep(pause);
      if (closed) return;
      try {
        await open();
      } catch {
        current?.disconnect(); // refused or unreachable: this one is dropped, another tried
        continue;
      }
      if (!closed) listener.resync();
      return;
    }
  };

  const close = () => {
    closed = true;
    current?.disconnect();
  };
  try {
    await bound('SUBSCRIBE', open());
  } catch (error) {
    close();
    throw error;
  }
  return close;
}

/**
 * Resolves once an ioredis `Cluster` is ready: until then (a store used in the same tick as `new
 * Cluster()`) it knows none of its nodes to open the subscriber beside. A plain connection needs no
 * wait: its `duplicate()` connects by itself. Rejects when the cluster client is closed first.
 */
function clusterReady(client: IoRedisLike): Promise<void> {
  if (client.isCluster !== true || client.status === 'ready') return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    const ready = () => {
      client.off('end', ended);
      resolve();
    };
    const ended = () => {
      client.off('ready', ready);
      reject(new Error('the cluster client was closed before it was ready'));
    };
    client.once('ready', ready);
    client.once('end', ended);
  });
}

/**
 * node-redis: the client's own `duplicate()`, which subscribes again by itself after a reconnect
 * and emits 'ready' once it did; a cluster client 'node-ready' for each node that came back, its
 * pub/sub node among them.
 */
async function subscribeNodeRedis(
  client: NodeRedisLike | NodeRedisClusterLike,
  channel: string,
  listener: SubscriptionListener,
  bound: Bound,
): Promise<() => void> {
  const sub = client.duplicate();
  let subscribed = false;
  sub.on('error', noop); // a lost connection shows as timeouts and a resync, not as a crash
  sub.on(isNodeRedisCluster(sub) ? 'node-ready' : 'ready', () => subscribed && listener.resync());
  const close = () => {
    if (typeof sub.destroy === 'function') sub.destroy();
    else void sub.disconnect?.().catch(noop);
  };
  try {
    await bound('SUBSCRIBE', sub.connect());
    await bound(
      'SUBSCRIBE',
      sub.subscribe(channel, (message) => listener.message(message)),
    );
  } catch (error) {
    close();
    throw error;
  }
  subscribed = true;
  return close;
}
