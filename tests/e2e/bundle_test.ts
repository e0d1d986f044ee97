// The compiled binary carries each thread's modules apart (scripts/compile.ts). The pattern
// engine (re2js) belongs in the three that compile patterns: the entry, the search thread and
// the pattern worker. After edits elsewhere, Bun once bundled it into the search worker too,
// which never imports it: that worker's module grew from 103 to 277 KB, and every first grep of
// a new server took about 20 ms longer (docs/decisions.md). A message only re2js holds is
// counted: once per module that carries it.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import { ensureBinary } from "../_helpers/binary.ts";

const ONLY_IN_RE2JS = "invalid nested repetition operator";

test("the pattern engine is only in the modules that compile patterns", () => {
  const binary = fs.readFileSync(ensureBinary());
  const marker = Buffer.from(ONLY_IN_RE2JS);
  let copies = 0;
  for (let at = binary.indexOf(marker); at !== -1; at = binary.indexOf(marker, at + 1)) copies++;
  assert.equal(
    copies,
    3,
    `re2js is in ${copies} modules of dist/linewise, not 3 (the entry, the search thread, the ` +
      "pattern worker): a worker that never compiles a pattern carries it (see docs/decisions.md)",
  );
});
