/** The members of an `ioredis` client (v5 or later, a `Redis` or a `Cluster`) that the stores use. */
export interface IoRedisLike {
  /** Sends any command. */
  call(command: string, ...args: (string | number)[]): Promise<unknown>;
  /** A new connection with the same options (for SUBSCRIBE). */
  duplicate(): IoRedisLike;
  /** Enters subscriber mode. */
  subscribe(...channels: string[]): Promise<unknown>;
  /** PING, also valid in subscriber mode. */
  ping(): Promise<unknown>;
  /** Event listeners: `message`, `ready`, `end`, `error`. */
  on(event: string, listener: (...args: string[]) => void): unknown;
  /** A listener called once: `ready`, `end`. */
  once(event: string, listener: () => void): unknown;
  /** Removes a listener. */
  off(event: string, listener: () => void): unknown;
  /** Closes the connection at once. */
  disconnect(): void;
  /** The connection's state: `'ready'` once it can take commands (a `Cluster`: once it knows its nodes). */
  readonly status?: string;
  /** True on a `Cluster`. */
  readonly isCluster?: boolean;
  /** A `Cluster`'s connections to its nodes (the subscriber opens its own beside one of them). */
  nodes?(role: 'all'): IoRedisLike[];
}

/** The members of a `node-redis` client (v4 or later, `createClient()`) that the stores use. */
export interface NodeRedisLike {
  /** Sends any command. */
  sendCommand(args: string[]): Promise<unknown>;
  /** A new client with the same options (for SUBSCRIBE); not yet connected. */
  duplicate(): NodeRedisLike;
  /** Opens the connection. */
  connect(): Promise<unknown>;
  /** Subscribes a listener to a channel. */
  subscribe(channel: string, listener: (message: string, channel: string) => void): Promise<unknown>;
  /** Event listeners: `ready`, `error`. */
  on(event: string, listener: (...args: string[]) => void): unknown;
  /** Closes the connection at once (v5 and later). */
  destroy?(): void;
  /** Closes the connection (v4). */
  disconnect?(): Promise<void>;
}

/**
 * The members of a `node-redis` cluster client (v4 or later, `createCluster()`) that the stores
 * use. Commands go to the node owning their first key; a MOVED, an ASK or a failover is the
 * client's to follow.
 */
export interface NodeRedisClusterLike {
  /** Sends any command to the node owning `firstKey` (any node when undefined). */
  sendCommand(
    firstKey: string | undefined,
    isReadonly: boolean | undefined,
    args: string[],
  ): Promise<unknown>;
  /** The cluster's masters (tells a cluster from a single client). */
  readonly masters: unknown;
  /** A new cluster client with the same options (for SUBSCRIBE); not yet connected. */
  duplicate(): NodeRedisClusterLike;
  /** Opens the connections. */
  connect(): Promise<unknown>;
  /** Subscribes a listener to a channel. */
  subscribe(channel: string, listener: (message: string, channel: string) => void): Promise<unknown>;
  /** Event listeners: `node-ready`, `error`. */
  on(event: string, listener: (...args: string[]) => void): unknown;
  /** Closes the connections at once (v5 and later). */
  destroy?(): void;
  /** Closes the connections (v4). */
  disconnect?(): Promise<void>;
}

/**
 * A Redis client the user already runs, connected: `ioredis` (v5 or later, a `Redis` or a
 * `Cluster`) or `node-redis` (v4 or later, `createClient()` or `createCluster()`).
 */
export type RedisClientLike = IoRedisLike | NodeRedisLike | NodeRedisClusterLike;

/** An ioredis `Redis` or `Cluster`. */
export function isIoRedis(client: RedisClientLike): client is IoRedisLike {
  return typeof (client as IoRedisLike)?.call === 'function';
}

/** A node-redis `createCluster()` client. */
export function isNodeRedisCluster(client: RedisClientLike): client is NodeRedisClusterLike {
  return !isIoRedis(client) && typeof client === 'object' && client !== null && 'masters' in client;
}

/** A node-redis `createClient()` client. */
export function isNodeRedis(client: RedisClientLike): client is NodeRedisLike {
  return (
    !isIoRedis(client) &&
    !isNodeRedisCluster(client) &&
    typeof (client as NodeRedisLike)?.sendCommand === 'function'
  );
}
