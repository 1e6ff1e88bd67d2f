import { script } from './connection.js';
import { LUA } from './lua-sources.js';

// src/redis/scripts/rate-limiter-*.lua name every key and argument. Both keys of an account share
// one hash tag, so they live in one slot of a Redis Cluster; every script reads Redis's clock.

/** Takes up to `wanted` slots of the shared limit (a sliding log). */
export const acquireScript = script('rate limiter acquire', LUA['rate-limiter-acquire']);
/** The answers came: each slot frees one interval from now. */
export const releaseScript = script('rate limiter release', LUA['rate-limiter-release']);
/** Holds every start of every process after a 429. */
export const pauseScript = script('rate limiter pause', LUA['rate-limiter-pause']);
/** Takes back the slots of an acquire whose answer never arrived. */
export const cancelScript = script('rate limiter cancel', LUA['rate-limiter-cancel']);
