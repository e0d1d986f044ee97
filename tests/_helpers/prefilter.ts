// The bytes a search looks for with a matcher, as the search works them out (for tests that
// examine files without a search around them).
import type { Matcher } from "../../src/core/mod.ts";
import {
  lineStartNeedle,
  type Prefilter,
  prefilterOf as prefilterFor,
} from "../../src/search/_search_file.ts";

/** The bytes a search looks for with a matcher, as the search works them out. */
export function prefilterOf(matcher: Matcher): Prefilter {
  const { requiredLiteral, alternativeLiterals, foldedLiterals, requiredLiterals } = matcher;
  const lineStart = lineStartNeedle(matcher.lineStart);
  const prefilter = prefilterFor(
    requiredLiteral,
    alternativeLiterals,
    foldedLiterals,
    requiredLiterals,
  );
  return lineStart === undefined ? prefilter : { ...prefilter, lineStart };
}
