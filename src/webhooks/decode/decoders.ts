import type * as z from 'zod/mini';
import { V2_EVENTS } from '../../schemas/constants.js';
import { buildV2, type KnownV2Event, v2Schemas } from '../../schemas/events-v2.js';
import { buildV3, v3Schemas } from '../../schemas/events-v3.js';
import { lazy } from '../../schemas/kit.js';
import { asFast, fastKit } from './fast-kit.js';
import type { Decoder } from './items.js';

/** Pairs every zod schema of `schemas` with the fast decoder built by the same builder. */
function pair<T extends Record<string, z.ZodMiniType>>(schemas: T, fast: T | undefined) {
  const out = {} as { [K in keyof T]: Decoder<T[K]> };
  for (const key of Object.keys(schemas) as (keyof T)[]) {
    out[key] = { schema: schemas[key], fast: fast && asFast(fast[key] as z.ZodMiniType) };
  }
  return out;
}

/** The decoders of one build: with the fast path (the default), or zod alone (the reference). */
export interface Decoders {
  v2: Record<KnownV2Event, Decoder>;
  meta: Decoder;
  v3: ReturnType<typeof pairV3>;
}

function pairV3(fast: boolean) {
  return pair(v3Schemas(), fast ? buildV3(fastKit) : undefined);
}

function build(fast: boolean): Decoders {
  const kit = fast ? buildV2(fastKit) : undefined;
  const schemas = v2Schemas();
  const v2 = {} as Record<KnownV2Event, Decoder>;
  for (const event of V2_EVENTS) {
    v2[event] = { schema: schemas.payloads[event], fast: kit && asFast(kit.payloads[event]) };
  }
  const meta = { schema: schemas.webhookMeta, fast: kit && asFast(kit.webhookMeta) };
  return { v2, meta, v3: pairV3(fast) };
}

/** The decoders with the fast path, built on the first delivery. */
export const fastDecoders = lazy(() => build(true));
/** The decoders without the fast path: zod alone, the reference the fast path is tested against. */
export const zodDecoders = lazy(() => build(false));
