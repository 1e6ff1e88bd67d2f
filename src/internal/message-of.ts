/**
 * What was thrown, as text for a report: an Error's message, anything else as a string. Never
 * throws: `Object.create(null)` or a `toString` that throws gives its tag, so a report of a
 * failure cannot fail in turn.
 */
export function messageOf(error: unknown): string {
  try {
    if (error instanceof Error) return error.message;
    return String((error as { message?: unknown } | null)?.message ?? error);
  } catch {
    return Object.prototype.toString.call(error);
  }
}
