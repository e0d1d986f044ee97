/**
 * The linewise version, kept equal to deno.json's by a test.
 *
 * @module
 */

/** The version `--version` and `initialize` report. */
export const VERSION = "0.1.0";
