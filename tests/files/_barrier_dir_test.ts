import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import process from "node:process";
import { describe, it } from "node:test";
import {
  BARRIER_PREFIX,
  createBarrierDir,
  removeQuietly,
  removeStaleBarrierDirs,
} from "../../src/files/_barrier_dir.ts";

/** The id of a process that has ended. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ["--version"]);
  assert.equal(child.status, 0);
  return child.pid!;
}

describe("barrier directories", () => {
  it("are named for the process, and a new one removes those of ended processes", () => {
    const parent = fs.mkdtempSync(path.join(os.tmpdir(), "linewise-barriers-"));
    try {
      const dead = `${BARRIER_PREFIX}${deadPid()}-abc123`;
      const alive = `${BARRIER_PREFIX}${process.pid}-def456`;
      const older = `${BARRIER_PREFIX}ghi789`; // no process id: whose it is cannot be told
      const other = "something-else-1-x";
      for (const name of [dead, alive, older, other]) {
        fs.mkdirSync(path.join(parent, name));
        fs.writeFileSync(path.join(parent, name, "sentinel-1"), "");
      }
      const made = createBarrierDir(parent);
      assert.match(path.basename(made), new RegExp(`^${BARRIER_PREFIX}${process.pid}-`));
      assert.deepEqual(
        fs.readdirSync(parent).sort(),
        [alive, older, path.basename(made), other].sort(),
      );
      assert.deepEqual(removeStaleBarrierDirs(parent), [], "nothing more to remove");
    } finally {
      fs.rmSync(parent, { recursive: true, force: true });
    }
  });

  it("leave one that cannot be removed, whatever the error, and remove the others", () => {
    const parent = fs.mkdtempSync(path.join(os.tmpdir(), "linewise-barriers-"));
    try {
      const pid = deadPid();
      const names = ["a", "b", "c"].map((tail) => `${BARRIER_PREFIX}${pid}-${tail}`);
      for (const name of names) fs.mkdirSync(path.join(parent, name));
      // (Someone swapping a directory in it for a symlink while it goes: ENOTDIR.)
      const remove = (dir: string) => {
        if (dir.endsWith("-b")) {
          throw Object.assign(new Error("not a directory"), { code: "ENOTDIR" });
        }
        fs.rmSync(dir, { recursive: true });
      };
      assert.deepEqual(removeStaleBarrierDirs(parent, remove).sort(), [names[0], names[2]]);
      assert.deepEqual(fs.readdirSync(parent), [names[1]]);
    } finally {
      fs.rmSync(parent, { recursive: true, force: true });
    }
  });
});

describe("removeQuietly()", () => {
  it("removes a directory and what it holds, and says nothing when it cannot", () => {
    const dir = createBarrierDir(fs.mkdtempSync(path.join(os.tmpdir(), "linewise-quiet-")));
    fs.writeFileSync(path.join(dir, "sentinel"), "");
    removeQuietly(dir);
    assert.equal(fs.existsSync(dir), false);
    removeQuietly(dir); // (gone already)
    removeQuietly("a\0b"); // (refused by the runtime: it throws, and is passed over)
    fs.rmSync(path.dirname(dir), { recursive: true });
  });
});
