import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { mapOsError } from "../../src/files/_os_errors.ts";
import { StoreError } from "../../src/store/errors.ts";

/** A failure as the runtimes report one: an Error with a code. */
function failure(code: string): Error {
  return Object.assign(new Error(`${code}: the system call failed`), { code });
}

describe("mapOsError()", () => {
  it("tells a file that could not be opened for want of descriptors, not as an internal error", () => {
    for (
      const [code, whose] of [["EMFILE", "this process's"], ["ENFILE", "the system's"]] as const
    ) {
      const mapped = mapOsError(failure(code), "src/a.ts", "read");
      assert.ok(mapped instanceof StoreError, code);
      assert.equal(mapped.code, "too_many_open_files");
      assert.equal(
        mapped.message,
        `"src/a.ts" could not be opened: ${whose} limit of open files is reached (nothing was ` +
          "changed). Try again once fewer files are open, or raise the limit (ulimit -n)",
      );
    }
  });

  it("gives back a failure it does not know, for the caller to rethrow", () => {
    const unknown = failure("EIO");
    assert.equal(mapOsError(unknown, "a", "read"), unknown);
  });
});
