/**
 * The text of a caught error, for diagnostics.
 *
 * @module
 */

/**
 * An error's message, or the thrown value as a string.
 *
 * @param error anything caught
 * @returns the text to log
 */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
