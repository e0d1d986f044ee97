import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { rebasedGlobs } from "../../../src/tools/read/_absolute_globs.ts";
import type { FileStore } from "../../../src/store/file_store.ts";
import { grepText, okText, withTempRoot } from "../../_helpers/tools.ts";

const FILES = { "src/a.ts": "hit\n", "src/deep/b.ts": "hit\n", "docs/c.md": "hit\n", "x.ts": "" };

describe("glob patterns written as absolute paths", () => {
  test("a pattern through a folder of the root is taken relative to path, anchored", async () => {
    await withTempRoot(FILES, async (root, h) => {
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ pattern: `${root.dir}/src/**/*.ts` }, "src/a.ts\nsrc/deep/b.ts\n"],
        [{ pattern: `${root.dir}/**/*.ts` }, "src/a.ts\nsrc/deep/b.ts\nx.ts\n"],
        [{ pattern: `${root.dir}/src/a.ts` }, "src/a.ts\n"],
        [{ pattern: `${root.dir}/src/*.ts`, path: "src" }, "src/a.ts\n"],
        [{ pattern: [`${root.dir}/**/*.ts`, `!${root.dir}/src/deep/**`] }, "src/a.ts\nx.ts\n"],
        // (Anchored at path: x.ts at the top only, not src/x.ts.)
        [{ pattern: "/x.ts" }, "x.ts\n"],
      ];
      for (const [args, expected] of cases) {
        assert.equal(okText(await h.call("glob", args)), expected, JSON.stringify(args));
      }
      const grep = await h.call("grep", { pattern: "hit", glob: `${root.dir}/src/deep/*.ts` });
      assert.match(grepText(grep), /^src\/deep\/b\.ts\n1\thit\n$/);
    });
  });

  test("a pattern that names no folder in the roots, or one above path, matches as written, and says how a / reads", async () => {
    await withTempRoot(FILES, async (root, h) => {
      for (
        const args of [
          { pattern: "/etc/*.conf" },
          { pattern: `${root.dir}/nowhere/*.ts` },
          { pattern: `${root.dir}/*.ts`, path: "src" },
          { pattern: `${root.dir}/x.ts/*` },
        ]
      ) {
        assert.match(
          okText(await h.call("glob", args)),
          /^\[no files match .* \(a leading \/ anchors a pattern at path, unless it names a folder in the roots\)\]\n$/,
          JSON.stringify(args),
        );
      }
    });
  });

  test("a store's own failure is not taken for a pattern that names no folder", async () => {
    const broken = {
      stat: (path: string) => {
        if (path === ".") return Promise.resolve({ path: ".", kind: "directory", size: 0 });
        return Promise.reject(new RangeError("the store broke"));
      },
    } as unknown as FileStore;
    await assert.rejects(rebasedGlobs(broken, "/some/where/*.ts", "."), /the store broke/);
    assert.equal(await rebasedGlobs(broken, "src/*.ts", "."), "src/*.ts");
  });
});
