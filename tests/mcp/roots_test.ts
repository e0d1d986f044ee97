import { test } from "node:test";
import process from "node:process";
import assert from "node:assert/strict";
import { fileURLToPath, pathToFileURL } from "node:url";
import { clientRootPaths } from "../../src/mcp/roots.ts";

test("clientRootPaths() turns file URIs into local paths, in order", () => {
  const first = pathToFileURL("/tmp/my project").href;
  const second = pathToFileURL("/srv/ü").href;
  const { paths, skipped } = clientRootPaths({
    roots: [{ uri: first, name: "a" }, { uri: second }],
  });
  assert.deepEqual(paths, [fileURLToPath(first), fileURLToPath(second)]);
  assert.deepEqual(skipped, []);
});

test("clientRootPaths() decodes percent-encoding", () => {
  const { paths } = clientRootPaths({ roots: [{ uri: "file:///tmp/a%20b" }] });
  assert.deepEqual(paths, [fileURLToPath("file:///tmp/a%20b")]);
  assert.match(paths[0], /a b$/);
});

test("clientRootPaths() skips roots that are not file URIs and says why", () => {
  const { paths, skipped } = clientRootPaths({
    roots: [{ uri: "https://example.com/x" }, { name: "no uri" }, "file:///x", null],
  });
  assert.deepEqual(paths, []);
  assert.equal(skipped.length, 4);
  assert.match(skipped[0], /https:\/\/example\.com\/x.*only file:\/\/ URIs/);
});

test("clientRootPaths() skips a file URI with a remote host", {
  skip: process.platform === "win32",
}, () => {
  const { paths, skipped } = clientRootPaths({ roots: [{ uri: "file://elsewhere/share" }] });
  assert.deepEqual(paths, []);
  assert.equal(skipped.length, 1);
});

test("clientRootPaths() accepts an empty roots list", () => {
  assert.deepEqual(clientRootPaths({ roots: [] }), { paths: [], skipped: [] });
});

test("clientRootPaths() refuses a result without a roots array with a TypeError", () => {
  for (const bad of [undefined, null, {}, { roots: "x" }]) {
    assert.throws(() => clientRootPaths(bad), TypeError);
  }
});
