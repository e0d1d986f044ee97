// End to end: `linewise grep` prints whole rows, as ripgrep does, also of a line of megabytes
// in a file over the 16 MiB a search reads whole. Such a line was passed over as the MCP tool
// passes it (its row cut to about 2,000 characters, without a word), so that --column, -x,
// -A and -v were wrong for it. Only a line over 256 MiB is still passed over, and then said.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import { join } from "node:path";
import { cliEnv, ensureBinary, tempRoot } from "../_helpers/binary.ts";

describe("linewise grep of long lines in a large file", () => {
  const tree = tempRoot();
  const LONG = "z".repeat(5_300_000);
  const grep = (...args: string[]) => {
    const run = spawnSync(ensureBinary(), ["grep", ...args], {
      cwd: tree.dir,
      env: cliEnv(),
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
    });
    return { status: run.status, stdout: run.stdout, stderr: run.stderr };
  };
  before(() => {
    // (22 MB: over the 16 MiB a search reads whole, so it is read in runs of lines.)
    fs.writeFileSync(
      join(tree.dir, "big.txt"),
      `${LONG}foo\n${"lorem\n".repeat(2_000_000)}${"y".repeat(5_000_000)}\nend\n`,
    );
  });
  after(() => tree.remove());

  test("a line of megabytes is a whole row, with its column and context", () => {
    const row = `${LONG}foo\n`;
    const cases: [string[], string][] = [
      [["foo", "big.txt"], `1:${row}`],
      [["-x", "z+foo", "big.txt"], `1:${row}`],
      [["--column", "foo", "big.txt"], `1:5300001:${row}`],
      [["-A1", "foo", "big.txt"], `1:${row}2-lorem\n`],
      [["-B1", "end", "big.txt"], `2000002-${"y".repeat(5_000_000)}\n2000003:end\n`],
      [["-c", "-v", "lorem", "big.txt"], "3\n"],
    ];
    for (const [args, expected] of cases) {
      const run = grep(...args);
      assert.equal(run.stderr, "", args.join(" "));
      assert.equal(run.status, 0, args.join(" "));
      assert.ok(
        run.stdout === expected,
        `${args.join(" ")}: ${run.stdout.length} characters, not ${expected.length}`,
      );
    }
  });

  test("a line over 256 MiB is passed over, and its row said to be a part", () => {
    // (Sparse: its zeros past the first bytes are read at once, and are no binary file's.)
    const path = join(tree.dir, "huge.txt");
    fs.writeFileSync(path, `first foo\n${"z".repeat(10_000)}`);
    fs.truncateSync(path, 270_000_000);
    fs.appendFileSync(path, "foo\nlast foo\n");
    const run = grep("-n", "foo", "huge.txt");
    const rows = run.stdout.split("\n");
    assert.deepEqual([rows[0], rows[2], rows[3], rows.length], [
      "1:first foo",
      "3:last foo",
      "",
      4,
    ]);
    assert.match(rows[1], /^2:\0+foo$/);
    assert.equal(
      run.stderr,
      `linewise: huge.txt:2: the line is over 256 MiB, too long to hold: shown are ${
        rows[1].length - 2
      } of its 269999993 characters, from character ${269999993 - (rows[1].length - 2) + 1}\n`,
    );
    assert.equal(run.status, 0);
  });
});
