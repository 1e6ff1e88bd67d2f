import type * as z from 'zod/mini';
import type { Issue } from '../core/errors.js';

/** Turns zod issues into the SDK's `{ path, message }` issues, under an optional path prefix. */
export function toIssues(error: z.core.$ZodError, prefix: readonly (string | number)[] = []): Issue[] {
  return error.issues.map((i) => ({
    path: [...prefix, ...(i.path.filter((p) => typeof p !== 'symbol') as (string | number)[])],
    message: i.message,
  }));
}
