// Shared by the tests of the command line's grep: a request made of a command line's words.
import { parseArgs } from "node:util";
import { grepRequest } from "../../src/cli/_grep_request.ts";
import { OPTIONS, withValuesJoined } from "../../src/cli/_options.ts";

/** The request of a grep's words, as the command line parses them. */
export function requestOf(words: string[], io: Parameters<typeof grepRequest>[3] = {}) {
  const { values, positionals, tokens } = parseArgs({
    args: withValuesJoined(["grep", ...words]),
    options: OPTIONS,
    allowPositionals: true,
    strict: true,
    tokens: true,
  });
  return grepRequest(positionals.slice(1), values, tokens, io);
}
