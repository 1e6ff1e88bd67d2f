/**
 * What a {@link DedupeStore} says of a key when a delivery claims it.
 * - `claimed`: nobody holds it; the caller holds it now, for the lease, and goes ahead. A store may
 *   name the claim with a `token`, which the handler gives back to `complete` and `release`.
 *   `reply` is the CRM reply an earlier attempt kept ({@link DedupeStore.keepReply}) before its
 *   dispatch failed: the handler answers with it and does not run the responder again.
 * - `processing`: another delivery with this key is being processed (its lease is alive).
 * - `done`: processed already; `reply` is the CRM reply stored with it, if there was one.
 */
export type ClaimResult =
  | { state: 'claimed'; token?: string; reply?: unknown }
  | { state: 'processing' }
  | { state: 'done'; reply?: unknown };

/**
 * Where the handler keeps idempotency keys, in three states: claimed for a lease, done
 * (remembering a CRM reply), or forgotten (a forgotten key may still remember a CRM reply kept
 * with {@link DedupeStore.keepReply}). Share one store across a fleet of servers so that a
 * delivery is processed by exactly one of them however many receive it (`redisDedupeStore` of
 * `messaging-gateway-sdk/redis` is one).
 *
 * A claim whose holder died expires with its lease, so the service's next attempt is processed.
 * A CRM responder runs at most once per key: its reply is kept as soon as it returns, before any
 * listener runs, and every later claim of the key gets it.
 */
export interface DedupeStore {
  /** Atomically claims `key` for `leaseMs` unless it is held or done; says which. */
  claim(key: string, leaseMs: number): ClaimResult | Promise<ClaimResult>;
  /**
   * Keeps the CRM reply of `key` for `ttlMs`, whatever becomes of the claim: a later `claim` of a
   * released or expired key answers `{ state: 'claimed', reply }`, so a retry is answered with it
   * instead of creating a second CRM entity. `complete` supersedes it.
   */
  keepReply(key: string, reply: unknown, ttlMs: number, token?: string): void | Promise<void>;
  /**
   * Marks `key` done for `ttlMs`, remembering the CRM reply a repeat of it must get. With the
   * `token` of a claim, only while that claim still holds the key, or nothing does: a holder whose
   * lease ran out never overwrites the claim, or the stored reply, of the attempt that took over.
   */
  complete(key: string, ttlMs: number, reply?: unknown, token?: string): void | Promise<void>;
  /**
   * Forgets `key` (a reply kept with `keepReply` stays), so the service's next attempt of a failed
   * delivery is processed. With the `token` of a claim, only while that claim still holds the
   * key: a holder whose lease ran out never frees the claim of the attempt that took over.
   */
  release(key: string, token?: string): void | Promise<void>;
  /**
   * Optional: a store in the CRM's own database processes each delivery inside one transaction of
   * it. `process` runs there, given the driver's transaction handle (the responder gets it as
   * `tx`, and a dispatch to a queue in the same database writes in it); the key is marked done
   * with the reply `process` returned in the same commit, for `ttlMs`. The key is held while the
   * transaction lives and freed when it ends, however it ends (a crash included), so the
   * service's next attempt is processed at once. Resolves to `processing` (another attempt holds
   * the key: 409), `done` (processed already, with its reply), or `claimed` with the reply of this
   * run (done now). Rejects, with nothing written, when `process` rejects. The transaction lives
   * at most `leaseMs` (the handler's lease): when `process` has not settled by then, the store
   * rolls the transaction back, its handle refuses every later call, its connection is returned,
   * and this rejects with a retryable GatewayError, the key free for the next attempt. Stores
   * without it are claimed, then completed or released, as above.
   */
  processInTransaction?(
    key: string,
    process: (tx: unknown) => Promise<unknown>,
    ttlMs: number,
    leaseMs: number,
  ): Promise<ClaimResult>;
}
