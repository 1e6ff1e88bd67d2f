// How long the store's transactions that run the user's code may live, on the client and on the
// server: the worker's batch (`timeoutMs` per delivery) and the dedupe transaction of a CRM
// responder (the handler's lease).

/**
 * What a claim's lease adds to `timeoutMs` (ms): the time from the claim's commit to its batch
 * locking the rows (a connection to wait for, a round trip). The batch holds its rows locked
 * from then on, so the lease matters only before, and when its worker died.
 */
export const LEASE_MARGIN_MS = 1_000;

/**
 * What the server's `idle_in_transaction_session_timeout` adds to a transaction's own bound
 * (ms). The store ends its transactions itself at the bound; the server's limit is for a process
 * that cannot (frozen, stopped in a debugger, its machine paused) and still holds the
 * transaction's locks: a chat's deliveries, a key the service's retries get 409 for. The gap it
 * measures is the time between two statements, at most the bound for a listener or responder
 * that sends none, so this margin (event-loop lag, a garbage collection) keeps it from ever
 * cutting a transaction the store would have let finish.
 */
export const IDLE_MARGIN_MS = 10_000;

/**
 * Select-list items bounding the transaction under way, from parameters `$n` (the bound, ms) and
 * `$n+1` (the idle limit): a statement past the bound is cut by the server (`statement_timeout`:
 * a statement stuck on a lock would otherwise hold the rollback that ends the transaction), and
 * the server ends the session when the transaction sits idle past the idle limit.
 */
export const boundsSql = (n: number): string =>
  `set_config('statement_timeout', $${n}::text, true) AS statement_timeout,
   set_config('idle_in_transaction_session_timeout', $${n + 1}::text, true) AS idle_timeout`;

/** The largest value either setting takes (ms). */
const MAX_SETTING_MS = 2_147_483_647;

/** The parameters of {@link boundsSql} for a transaction bounded by `ms`. */
export const boundsParams = (ms: number): [string, string] => [
  String(Math.min(Math.ceil(ms), MAX_SETTING_MS)),
  String(Math.min(Math.ceil(ms) + IDLE_MARGIN_MS, MAX_SETTING_MS)),
];
