import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { BOM, splitBom } from "../../src/core/bom.ts";
import { RUNS, text } from "../_helpers/arbitraries.ts";

describe("splitBom()", () => {
  const ROWS: Array<[string, string, string, string]> = [
    ["a leading BOM is set aside", "\uFEFFa\n", "\uFEFF", "a\n"],
    ["text without a BOM is all body", "a\n", "", "a\n"],
    ["empty text has no BOM", "", "", ""],
    ["a BOM alone is a BOM and an empty body", "\uFEFF", "\uFEFF", ""],
    ["a BOM + CRLF text keeps its CRLF in the body", "\uFEFFa\r\nb\r\n", "\uFEFF", "a\r\nb\r\n"],
    ["only the first of two BOMs is the mark", "\uFEFF\uFEFFa", "\uFEFF", "\uFEFFa"],
    ["a U+FEFF after the start is text", "a\uFEFF", "", "a\uFEFF"],
    ["a BOM before a newline leaves an empty first line", "\uFEFF\nb", "\uFEFF", "\nb"],
  ];
  for (const [name, input, bom, body] of ROWS) {
    test(`splitBom(): ${name}`, () => {
      assert.deepEqual(splitBom(input), { bom, body });
    });
  }

  test("splitBom() parts join back to the text", () => {
    fc.assert(
      fc.property(text, (t) => {
        const { bom, body } = splitBom(t);
        return bom + body === t && (bom === "" || bom === BOM);
      }),
      RUNS,
    );
  });

  test("BOM is U+FEFF", () => {
    assert.equal(BOM, "\uFEFF");
    assert.equal(BOM.length, 1);
  });
});
