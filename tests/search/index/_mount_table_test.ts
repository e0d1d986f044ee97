import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import { MOUNT_TABLE, mountsInside } from "../../../src/search/index/_mount_table.ts";

describe("mountsInside", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "linewise-mounts-test-"));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const table = (lines: string[]) => {
    const file = path.join(dir, `mountinfo-${Math.random()}`);
    fs.writeFileSync(file, lines.map((line) => `${line}\n`).join(""));
    return file;
  };
  const line = (id: number, point: string) =>
    `${id} 1 8:1 / ${point} rw,relatime shared:1 - ext4 /dev/sda1 rw`;

  test("keeps the mounts below a root, not the root, above it, or beside it", () => {
    const lines = [
      line(20, "/"),
      line(21, "/work"),
      line(22, "/work/tree"),
      line(23, "/work/tree/sub"),
      line(24, "/work/treehouse"),
      line(25, "/work/tree/sub/deeper"),
      line(26, "/other/x"),
    ];
    const file = table(lines);
    assert.equal(mountsInside(["/work/tree"], file), [lines[3], lines[5]].join("\n"));
    assert.equal(
      mountsInside(["/other", "/work/tree"], file),
      [lines[3], lines[5], lines[6]].join("\n"),
    );
    assert.equal(mountsInside(["/elsewhere"], file), "");
  });

  test("reads a mount point's escaped spaces, tabs, line breaks and backslashes", () => {
    const spaced = line(30, "/work/tree/a\\040b\\011c\\012d\\134e/m");
    const file = table([line(29, "/work/tree/a"), spaced]);
    assert.equal(mountsInside(["/work/tree/a b\tc\nd\\e"], file), spaced);
    assert.equal(mountsInside(["/work/tree/a"], file), "");
  });

  test("a table that cannot be read gives nothing (no change can show then)", () => {
    assert.equal(mountsInside(["/"], path.join(dir, "missing")), "");
  });

  // (Deno reads /proc/self/mountinfo only with --allow-all; the index runs on Bun.)
  let own: string | undefined;
  try {
    own = fs.readFileSync(MOUNT_TABLE, "utf8");
  } catch { /* none to read here */ }
  test("this process's table is read", {
    skip: own === undefined ? "no mount table to read here" : false,
  }, () => {
    // Every mount but the root's own lies below "/".
    const mounts = mountsInside(["/"]).split("\n");
    assert.ok(mounts.length > 0 && mounts.every((mount) => mount.split(" ")[4] !== "/"));
    assert.ok(own!.split("\n").length > mounts.length);
  });
});
