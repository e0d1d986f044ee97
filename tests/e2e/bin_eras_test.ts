// End to end: one binary serves both eras of MCP. The v2 client pinned to 2026-07-28 and in
// auto mode (the stateless era, server/discover first), and the v1 client (initialize),
// each drive every tool through the compiled binary.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client as ModernClient } from "@modelcontextprotocol/client";
import { StdioClientTransport as ModernTransport } from "@modelcontextprotocol/client/stdio";
// @ts-types="../../node_modules/@modelcontextprotocol/sdk/dist/esm/client/index.d.ts"
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="../../node_modules/@modelcontextprotocol/sdk/dist/esm/client/stdio.d.ts"
import { StdioClientTransport as LegacyTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { createPatch } from "diff";
import { ensureBinary, RawSession, tempRoot } from "../_helpers/binary.ts";

type Result = {
  content: Array<{ type: string; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
};
type Call = (name: string, args: Record<string, unknown>) => Promise<Result>;

const TOOLS = [
  "read",
  "grep",
  "glob",
  "list",
  "write",
  "replace",
  "replace_lines",
  "insert_lines",
  "patch",
  "undo",
  "move",
  "delete",
];

/** Calls every tool once, as an agent would, checking each result and the files after. */
async function driveEveryTool(call: Call, dir: string): Promise<void> {
  const at = (name: string) => join(dir, name);
  writeFileSync(at("a.ts"), "one\r\ntwo\r\nthree\r\n");
  const ok = async (name: string, args: Record<string, unknown>) => {
    const result = await call(name, args);
    assert.notEqual(result.isError, true, `${name}: ${result.content[0]?.text}`);
    assert.ok(result.structuredContent, `${name} gives structured content`);
    return result;
  };
  assert.match(
    (await ok("read", { path: "a.ts" })).content[0].text,
    /^\[version \w{8}\]\n1\tone\r\n/,
  );
  assert.match((await ok("grep", { pattern: "two" })).content[0].text, /^a\.ts @\w{8}\n2\ttwo\r\n/);
  assert.equal((await ok("glob", { pattern: "*.ts" })).content[0].text, "a.ts\n");
  assert.match((await ok("list", {})).content[0].text, /a\.ts/);
  await ok("write", { path: "b.ts", content: "b\n" });
  // (Each edit names the version the last result showed: a request of 2026-07-28 stands alone.)
  const versionOf = (result: Result) => result.structuredContent?.version as string;
  let last = await ok("replace", { path: "a.ts", old_text: "one", new_text: "1" });
  last = await ok("replace_lines", {
    path: "a.ts",
    edits: [{ start_line: 2, new_text: "2" }],
    version: versionOf(last),
  });
  last = await ok("insert_lines", {
    path: "a.ts",
    after_line: 3,
    text: "four",
    version: versionOf(last),
  });
  assert.equal(readFileSync(at("a.ts"), "utf8"), "1\r\n2\r\nthree\r\nfour\r\n");
  await ok("undo", { path: "a.ts", version: versionOf(last) });
  assert.equal(readFileSync(at("a.ts"), "utf8"), "1\r\n2\r\nthree\r\n");
  await ok("patch", { patch: createPatch("b.ts", "b\n", "B\n") });
  assert.equal(readFileSync(at("b.ts"), "utf8"), "B\n");
  await ok("move", { from: "b.ts", to: "c.ts" });
  await ok("delete", { path: "c.ts" });
}

/** What both SDK clients offer that the tests use. */
interface AnyClient {
  listTools(): Promise<{ tools: Array<{ name: string }> }>;
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
}

/** Checks the client sees every tool, then drives each. */
async function listAndDrive(client: AnyClient, dir: string): Promise<void> {
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name).sort(), [...TOOLS].sort());
  await driveEveryTool(
    async (tool, args) => await client.callTool({ name: tool, arguments: args }) as Result,
    dir,
  );
}

describe("the binary in the 2026-07-28 era", () => {
  const modes = [["pinned to 2026-07-28", { pin: "2026-07-28" }], [
    "in auto mode",
    "auto",
  ]] as const;
  for (const [name, mode] of modes) {
    test(`the v2 client ${name} connects statelessly and drives every tool`, {
      timeout: 60_000,
    }, async () => {
      const root = tempRoot();
      const client = new ModernClient({ name: "eras-test", version: "1.0.0" }, {
        versionNegotiation: { mode },
      });
      await client.connect(
        new ModernTransport({ command: ensureBinary(), args: ["serve", "--root", root.dir] }),
      );
      try {
        assert.equal(client.getNegotiatedProtocolVersion(), "2026-07-28");
        assert.equal(client.getServerVersion()?.name, "linewise");
        assert.match(client.getInstructions() ?? "", /replace_lines/);
        await listAndDrive(client, root.dir);
      } finally {
        await client.close();
        root.remove();
      }
    });
  }
});

describe("the binary's stateless era: each request stands alone", () => {
  test("a numbered edit needs version or expected_text, and undo the version it undoes", {
    timeout: 60_000,
  }, async () => {
    const root = tempRoot();
    writeFileSync(join(root.dir, "s.txt"), "a\nb\nc\n");
    const client = new ModernClient({ name: "eras-test", version: "1.0.0" }, {
      versionNegotiation: { mode: { pin: "2026-07-28" } },
    });
    await client.connect(
      new ModernTransport({ command: ensureBinary(), args: ["serve", "--root", root.dir] }),
    );
    const call = async (name: string, args: Record<string, unknown>) =>
      await client.callTool({ name, arguments: args }) as Result;
    try {
      // A read in an earlier request does not vouch for the numbers of a later one (another
      // conversation may have sent it): the line numbers alone are refused.
      const read = await call("read", { path: "s.txt" });
      const shown = read.structuredContent?.version as string;
      const bare = await call("insert_lines", { path: "s.txt", after_line: 1, text: "X" });
      assert.equal(bare.isError, true);
      assert.match(bare.content[0].text, /stands alone.*Pass version .* or expected_text/);
      const bareLines = await call("replace_lines", {
        path: "s.txt",
        edits: [{ start_line: 2, new_text: "B" }],
      });
      assert.equal(bareLines.isError, true);
      assert.equal(readFileSync(join(root.dir, "s.txt"), "utf8"), "a\nb\nc\n");
      const guarded = await call("replace_lines", {
        path: "s.txt",
        edits: [{ start_line: 2, new_text: "B", expected_text: "b" }],
      });
      assert.notEqual(guarded.isError, true, guarded.content[0].text);
      const named = await call("insert_lines", {
        path: "s.txt",
        after_line: 1,
        text: "X",
        version: guarded.structuredContent?.version as string,
      });
      assert.notEqual(named.isError, true, named.content[0].text);
      assert.equal(readFileSync(join(root.dir, "s.txt"), "utf8"), "a\nX\nB\nc\n");
      const undoBare = await call("undo", { path: "s.txt" });
      assert.equal(undoBare.isError, true);
      assert.match(undoBare.content[0].text, /stands alone: pass version/);
      const undoWrong = await call("undo", { path: "s.txt", version: shown });
      assert.equal(undoWrong.isError, true);
      assert.match(undoWrong.content[0].text, /nothing was undone/);
      const undone = await call("undo", {
        path: "s.txt",
        version: named.structuredContent?.version as string,
      });
      assert.notEqual(undone.isError, true, undone.content[0].text);
      assert.equal(readFileSync(join(root.dir, "s.txt"), "utf8"), "a\nB\nc\n");
    } finally {
      await client.close();
      root.remove();
    }
  });
});

describe("the binary in the legacy era", () => {
  test("the v1 client connects with initialize and drives every tool", {
    timeout: 60_000,
  }, async () => {
    const root = tempRoot();
    const client = new LegacyClient({ name: "eras-test", version: "1.0.0" });
    await client.connect(
      new LegacyTransport({ command: ensureBinary(), args: ["serve", "--root", root.dir] }),
    );
    try {
      await listAndDrive(client, root.dir);
    } finally {
      await client.close();
      root.remove();
    }
  });
});

describe("the binary's eras, line by line", () => {
  type Answer = { id?: unknown; result?: Record<string, unknown>; error?: Record<string, unknown> };
  const META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
  };
  const request = (id: string, method: string, params: Record<string, unknown> = {}) => ({
    jsonrpc: "2.0",
    id,
    method,
    params,
  });
  /** Waits for the answers to every id (a tool call may be answered after later requests). */
  async function answers(session: RawSession, ...ids: string[]): Promise<Map<unknown, Answer>> {
    const parsed = () =>
      new Map(session.rawLines.map((l) => JSON.parse(l) as Answer).map((a) => [a.id, a]));
    await session.until(() => ids.every((id) => parsed().has(id)), 30_000);
    return parsed();
  }

  test("server/discover, tools/list and tools/call in the stateless era", async () => {
    const root = tempRoot();
    writeFileSync(join(root.dir, "a.txt"), "one\n");
    const session = new RawSession(["serve", "--root", root.dir]);
    try {
      session.sendJson(request("d", "server/discover", { _meta: META }));
      session.sendJson(request("l", "tools/list", { _meta: META }));
      session.sendJson(
        request("c", "tools/call", { _meta: META, name: "read", arguments: { path: "a.txt" } }),
      );
      session.sendJson(request("p", "ping", { _meta: META }));
      session.sendJson(request("lc", "tools/list", { _meta: META, cursor: "bogus" }));
      const got = await answers(session, "d", "l", "c", "p", "lc");
      assert.equal(got.get("lc")!.error!.code, -32602, "a cursor the server never gave");
      const discover = got.get("d")!.result!;
      assert.equal(discover.resultType, "complete");
      assert.deepEqual(discover.supportedVersions, ["2026-07-28"]);
      assert.deepEqual(discover.capabilities, { tools: {} });
      assert.equal(typeof discover.instructions, "string");
      assert.equal(discover.ttlMs, 3_600_000);
      assert.equal(discover.cacheScope, "public");
      assert.equal(
        (discover._meta as Record<string, { name: string }>)["io.modelcontextprotocol/serverInfo"]
          .name,
        "linewise",
      );
      const list = got.get("l")!.result!;
      assert.equal(list.resultType, "complete");
      assert.equal(list.ttlMs, 3_600_000);
      assert.equal(list.cacheScope, "public");
      assert.equal((list.tools as unknown[]).length, 12);
      for (const tool of list.tools as Array<{ _meta?: Record<string, unknown> }>) {
        assert.equal(tool._meta?.["anthropic/maxResultSizeChars"], 60000);
      }
      // A request of the era stands alone: no text tells the model that an edit refers to what
      // an earlier call showed, as the server refuses such an edit here.
      assert.match(discover.instructions as string, /each request stands alone/);
      type Listed = {
        name: string;
        description: string;
        inputSchema: { properties: Record<string, { description?: string }>; required: string[] };
      };
      const tools = list.tools as Listed[];
      assert.doesNotMatch(discover.instructions as string, /latest|this session/);
      for (const { name, description, inputSchema } of tools) {
        const said = [description, inputSchema.properties.version?.description].join(" ");
        assert.doesNotMatch(said, /latest|this session/, name);
      }
      assert.match(
        tools.find((t) => t.name === "replace_lines")!.description,
        /Numbers refer to version/,
      );
      assert.deepEqual(tools.find((t) => t.name === "undo")!.inputSchema.required, [
        "path",
        "version",
      ]);
      const call = got.get("c")!.result!;
      assert.equal(call.resultType, "complete");
      // (Every result of the era names the server, as its spec asks.)
      for (const result of [list, call]) {
        const meta = result._meta as Record<string, { name: string }>;
        assert.equal(meta["io.modelcontextprotocol/serverInfo"].name, "linewise");
      }
      assert.match((call.content as Array<{ text: string }>)[0].text, /\n1\tone\n$/);
      assert.equal(got.get("p")!.error!.code, -32601, "ping is not part of 2026-07-28");
      assert.equal(await session.close(), 0);
    } finally {
      session.child.kill();
      root.remove();
    }
  });

  test("a subscription is acknowledged and held; arguments not an object are -32602", async () => {
    const root = tempRoot();
    const session = new RawSession(["serve", "--root", root.dir]);
    try {
      session.sendJson(
        request("s", "subscriptions/listen", {
          _meta: META,
          notifications: { toolsListChanged: true },
        }),
      );
      session.sendJson(request("bad", "tools/call", { _meta: META, name: "read", arguments: "x" }));
      session.sendJson({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: "s" },
      });
      session.sendJson(request("after", "tools/list", { _meta: META }));
      const got = await answers(session, "bad", "after");
      assert.equal(got.get("bad")!.error!.code, -32602);
      const acknowledged = session.rawLines.map((line) => JSON.parse(line)).find((message) =>
        message.method === "notifications/subscriptions/acknowledged"
      );
      assert.deepEqual(acknowledged.params, {
        _meta: { "io.modelcontextprotocol/subscriptionId": "s" },
        notifications: {},
      });
      assert.equal(got.has("s"), false, "held, then ended unanswered");
      assert.equal(await session.close(), 0);
    } finally {
      session.child.kill();
      root.remove();
    }
  });

  test("a missing or unsupported version in _meta is refused, and the server goes on", async () => {
    const root = tempRoot();
    const session = new RawSession(["serve", "--root", root.dir]);
    try {
      const withVersion = (version: unknown) => ({
        ...META,
        "io.modelcontextprotocol/protocolVersion": version,
      });
      session.sendJson(request("old", "tools/list", { _meta: withVersion("2025-11-25") }));
      session.sendJson(request("unknown", "tools/list", { _meta: withVersion("1900-01-01") }));
      session.sendJson(request("none", "server/discover", {}));
      const noCapabilities = { ...META } as Record<string, unknown>;
      delete noCapabilities["io.modelcontextprotocol/clientCapabilities"];
      session.sendJson(request("caps", "tools/list", { _meta: noCapabilities }));
      session.sendJson(request("after", "server/discover", { _meta: META }));
      const got = await answers(session, "old", "unknown", "none", "caps", "after");
      for (const [id, requested] of [["old", "2025-11-25"], ["unknown", "1900-01-01"]]) {
        const error = got.get(id)!.error!;
        assert.equal(error.code, -32022);
        assert.deepEqual(error.data, { supported: ["2026-07-28"], requested });
        assert.match(String(error.message), /earlier versions after initialize/);
      }
      assert.equal(got.get("none")!.error!.code, -32602);
      assert.match(String(got.get("none")!.error!.message), /protocolVersion/);
      assert.equal(got.get("caps")!.error!.code, -32602);
      assert.match(String(got.get("caps")!.error!.message), /clientCapabilities/);
      assert.equal(got.get("after")!.result!.resultType, "complete");
      assert.equal(await session.close(), 0);
    } finally {
      session.child.kill();
      root.remove();
    }
  });

  test("a legacy session never sees a 2026 field, even after a discover probe", async () => {
    const root = tempRoot();
    writeFileSync(join(root.dir, "a.txt"), "one\n");
    const session = new RawSession(["serve", "--root", root.dir]);
    try {
      // A host that probes first, finds the version it wants missing, and initializes.
      session.sendJson(request("probe", "server/discover", { _meta: META }));
      session.sendJson(request("init", "initialize", {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "raw", version: "1" },
      }));
      await answers(session, "probe", "init");
      session.sendJson({ jsonrpc: "2.0", method: "notifications/initialized" });
      session.sendJson(request("list", "tools/list"));
      session.sendJson(
        request("call", "tools/call", { name: "read", arguments: { path: "a.txt" } }),
      );
      session.sendJson(request("ping", "ping"));
      const got = await answers(session, "init", "list", "call", "ping");
      assert.equal(got.get("init")!.result!.protocolVersion, "2025-11-25");
      for (const id of ["init", "list", "call", "ping"]) {
        const line = JSON.stringify(got.get(id));
        for (const field of ["resultType", "ttlMs", "cacheScope", "io.modelcontextprotocol"]) {
          assert.ok(!line.includes(field), `${id} carries ${field}: ${line}`);
        }
      }
      assert.equal(await session.close(), 0);
    } finally {
      session.child.kill();
      root.remove();
    }
  });
});
