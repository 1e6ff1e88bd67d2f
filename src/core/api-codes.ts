/**
 * The `error` codes the service's error bodies carry (spec: Errors). No runtime dependency: the
 * error classes use this type.
 * @module
 */
import type { Lenient } from '../schemas/lenient.js';

/**
 * The API error codes of the spec: `uriNotValid` and `testPostNotPassed` (400 from the v3 webhook
 * settings) and `TOO_MACH_ENTITIES` (after a 403 for a sidecar API key; spelled as the service
 * spells it).
 */
export const API_ERROR_CODES = ['uriNotValid', 'testPostNotPassed', 'TOO_MACH_ENTITIES'] as const;
/** An API error code of the spec. */
export type KnownApiErrorCode = (typeof API_ERROR_CODES)[number];
/** The `code` of a GatewayApiError: one of the spec's codes, or any other the service sends. */
export type ApiErrorCode = Lenient<KnownApiErrorCode>;
