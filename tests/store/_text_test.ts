// lineEndFrom looks for a line's end byte by byte near its start, then by indexOf: wherever
// the `\n` stands (near, far, none), it must be where indexOf finds it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import fc from "fast-check";
import { lineEndFrom } from "../../src/store/_text.ts";

test("lineEndFrom finds the next \\n where indexOf finds it", () => {
  fc.assert(
    fc.property(
      fc.array(fc.nat(700), { maxLength: 6 }),
      fc.boolean(),
      fc.nat(3000),
      (lengths, last, from) => {
        const bytes = Buffer.from(
          lengths.map((n) => "x".repeat(n)).join("\n") + (last ? "\n" : ""),
        );
        const at = from % (bytes.length + 2);
        assert.equal(lineEndFrom(bytes, at), bytes.indexOf(10, at), `${lengths} from ${at}`);
      },
    ),
    { numRuns: 2000 },
  );
});
