// End to end: protocol robustness of the compiled binary, spoken to line by line.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import {
  callsWhilePinging,
  initialized,
  patternHelpers,
  RawSession,
  tempRoot,
  unversioned,
} from "../_helpers/binary.ts";

type Message = { id?: unknown; result?: Record<string, unknown>; error?: { code: number } };

function initialize(id: number, protocolVersion: string) {
  return {
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: { protocolVersion, capabilities: {}, clientInfo: { name: "raw", version: "1" } },
  };
}

async function withSession(body: (session: RawSession) => Promise<void>): Promise<void> {
  const root = tempRoot();
  const session = new RawSession(["serve", "--root", root.dir]);
  try {
    await body(session);
    assert.equal(await session.close(), 0, "the server exits cleanly when stdin closes");
  } finally {
    session.child.kill();
    root.remove();
  }
}

for (const version of ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]) {
  test(`initialize answers protocol version ${version} with that version`, async () => {
    await withSession(async (session) => {
      session.sendJson(initialize(1, version));
      const [reply] = await session.received(1) as Message[];
      assert.equal(reply.result!.protocolVersion, version);
      assert.equal((reply.result!.serverInfo as { name: string }).name, "linewise");
    });
  });
}

test("initialize with an unknown version is answered with the newest", async () => {
  await withSession(async (session) => {
    session.sendJson(initialize(1, "1999-01-01"));
    const [reply] = await session.received(1) as Message[];
    assert.equal(reply.result!.protocolVersion, "2025-11-25");
  });
});

test("bad input gets the right JSON-RPC errors and the server keeps answering", async () => {
  await withSession(async (session) => {
    session.sendJson(initialize(1, "2025-06-18"));
    session.sendJson({ jsonrpc: "2.0", method: "notifications/initialized" });
    session.send("{not json\n");
    // (Nested deeper than the parser's stack: it once ended the server.)
    session.send("[".repeat(100_000) + "]".repeat(100_000) + "\n");
    session.send(JSON.stringify([{ jsonrpc: "2.0", id: 2, method: "ping" }]) + "\n");
    session.sendJson({ jsonrpc: "1.0", id: 3, method: "ping" });
    session.sendJson({ jsonrpc: "2.0", id: 4 });
    session.sendJson({ jsonrpc: "2.0", id: 5, method: "no/such/method" });
    session.sendJson({ jsonrpc: "2.0", method: "notifications/unknown" });
    session.sendJson({
      jsonrpc: "2.0",
      id: 6,
      method: "tools/call",
      params: { name: "nope", arguments: {} },
    });
    session.send(
      `{"jsonrpc":"2.0","id":7,"method":"ping","params":{"pad":"${"x".repeat(5_000_000)}"}}\n`,
    );
    session.sendJson({ jsonrpc: "2.0", id: 8, method: "ping" });
    const replies = await session.received(10) as Message[];
    const byId = new Map(replies.filter((r) => r.id !== null).map((r) => [r.id, r]));
    const nullIds = replies.filter((r) => r.id === null).map((r) => r.error!.code).sort();
    assert.deepEqual(
      nullIds,
      [-32700, -32700, -32600].sort(),
      "parse errors (one nested too deeply), batch refused",
    );
    // (A line of 5 MB is within the cap, which holds the largest edit: see bin_limits_test.)
    assert.deepEqual(byId.get(7)!.result, {});
    assert.equal(byId.get(3)!.error!.code, -32600);
    assert.equal(byId.get(4)!.error!.code, -32600);
    assert.equal(byId.get(5)!.error!.code, -32601);
    assert.equal(byId.get(6)!.error!.code, -32602);
    assert.deepEqual(byId.get(8)!.result, {});
  });
});

test("a batch is answered as an array in a 2025-03-26 session", async () => {
  await withSession(async (session) => {
    session.sendJson(initialize(1, "2025-03-26"));
    session.send(
      JSON.stringify([
        { jsonrpc: "2.0", id: 2, method: "ping" },
        { jsonrpc: "2.0", id: 3, method: "ping" },
      ]) + "\n",
    );
    const replies = await session.received(2) as unknown[];
    assert.ok(Array.isArray(replies[1]));
    assert.deepEqual((replies[1] as Message[]).map((r) => r.id).sort(), [2, 3]);
  });
});

test("1,000 pipelined requests are each answered exactly once", async () => {
  await withSession(async (session) => {
    session.sendJson(initialize(0, "2025-06-18"));
    let burst = "";
    for (let id = 1; id <= 1000; id++) {
      burst += JSON.stringify(
        id % 2
          ? { jsonrpc: "2.0", id, method: "ping" }
          : { jsonrpc: "2.0", id, method: "tools/call", params: { name: "list", arguments: {} } },
      ) + "\n";
    }
    session.send(burst);
    const replies = await session.received(1001) as Message[];
    const ids = replies.map((r) => r.id as number).sort((a, b) => a - b);
    assert.deepEqual(ids, Array.from({ length: 1001 }, (_, i) => i));
  });
});

test("10,000 random or mutated lines leave the server alive, answering each well-formed request once", async () => {
  await withSession(async (session) => {
    session.sendJson(initialize(0, "2025-06-18"));
    let seed = 42;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const valid = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });
    let wellFormed = 0;
    let lines = "";
    for (let i = 0; i < 10000; i++) {
      const kind = random();
      if (kind < 0.1) {
        lines += JSON.stringify({ jsonrpc: "2.0", id: `ok-${i}`, method: "ping" }) + "\n";
        wellFormed++;
      } else if (kind < 0.5) {
        const chars = [...valid];
        const at = Math.floor(random() * chars.length);
        chars[at] = String.fromCharCode(Math.floor(random() * 128));
        lines += chars.join("").replaceAll("\n", "") + "\n";
      } else {
        const length = Math.floor(random() * 60);
        lines += Array.from({ length }, () =>
          String.fromCharCode(32 + Math.floor(random() * 95))).join("") + "\n";
      }
    }
    session.send(lines);
    session.sendJson({ jsonrpc: "2.0", id: "final", method: "ping" });
    const replies = await session.receivedUntil('"final"') as Message[];
    const okIds = replies.filter((r) => typeof r.id === "string" && String(r.id).startsWith("ok-"));
    assert.equal(okIds.length, wellFormed);
    assert.equal(new Set(okIds.map((r) => r.id)).size, wellFormed);
  });
});

/** A tree that takes the linear-time engine seconds to search for a nested-repeat pattern. */
function slowTree(dir: string): void {
  const content = ("a".repeat(1000) + "b\n").repeat(1000);
  for (let i = 0; i < 40; i++) {
    writeFileSync(join(dir, `f${String(i).padStart(2, "0")}.txt`), content);
  }
}

test("a cancelled grep gets no response, and the server goes on answering", {
  timeout: 30_000,
}, async () => {
  const root = tempRoot();
  slowTree(root.dir);
  const session = new RawSession(["serve", "--root", root.dir]);
  try {
    session.sendJson(initialize(0, "2025-06-18"));
    session.sendJson({ jsonrpc: "2.0", method: "notifications/initialized" });
    session.sendJson({
      jsonrpc: "2.0",
      id: "slow",
      method: "tools/call",
      params: { name: "grep", arguments: { pattern: "(a+)+$" } },
    });
    session.sendJson({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: "slow", reason: "test" },
    });
    session.sendJson({ jsonrpc: "2.0", id: "after", method: "ping" });
    await session.receivedUntil('"after"');
    // The search stops too: the server exits when stdin closes, not after the 10 s budget.
    const closing = Date.now();
    assert.equal(await session.close(), 0);
    const exited = Date.now() - closing;
    assert.ok(exited < 3000, `the server exited ${exited} ms after stdin closed`);
    const replies = await session.received(0) as Message[];
    assert.deepEqual(replies.map((r) => r.id), [0, "after"], "nothing for the cancelled call");
  } finally {
    session.child.kill();
    root.remove();
  }
});

test(
  "a cancelled grep on the pattern helper kills the helper, gets no response, and a ping is answered at once",
  {
    skip: process.platform !== "linux",
    timeout: 30_000,
  },
  async () => {
    const root = tempRoot();
    // (On this line the runtime's engine backtracks for hours: the default budget is 10 s.)
    writeFileSync(join(root.dir, "stuck.txt"), "c" + "a".repeat(3000) + "\n");
    const session = await initialized(["serve", "--root", root.dir]);
    const pid = session.child.pid!;
    try {
      assert.deepEqual(patternHelpers(pid), [], "no helper before the grep");
      session.sendJson({
        jsonrpc: "2.0",
        id: "stuck",
        method: "tools/call",
        params: { name: "grep", arguments: { pattern: "(?=a)a*a*a*a*c" } },
      });
      await session.until(() => patternHelpers(pid).length > 0, 5000);
      const cancelled = Date.now();
      session.sendJson({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: "stuck", reason: "the user pressed stop" },
      });
      await session.until(() => patternHelpers(pid).length === 0, 2000).catch(() => {});
      const gone = Date.now() - cancelled;
      assert.deepEqual(patternHelpers(pid), [], "the helper is killed on the cancel");
      const sent = Date.now();
      session.sendJson({ jsonrpc: "2.0", id: "after", method: "ping" });
      await session.receivedUntil('"after"', 5000);
      const ping = Date.now() - sent;
      assert.ok(gone < 1000, `the helper was gone ${gone} ms after the cancel`);
      assert.ok(ping < 100, `the ping after it was answered in ${ping} ms`);
      // (A grep the cancel did not stop would be answered at its budget, before the exit.)
      assert.equal(await session.close(), 0);
      const ids = (await session.received(0) as Message[]).map((r) => r.id);
      assert.deepEqual(ids, [0, "after"], "nothing for the cancelled call");
    } finally {
      session.child.kill("SIGKILL");
      root.remove();
    }
  },
);

test("a grep with a progress token reports progress before its result", async () => {
  const root = tempRoot();
  for (let i = 0; i < 30; i++) writeFileSync(join(root.dir, `f${i}.txt`), `line\nneedle ${i}\n`);
  const session = new RawSession(["serve", "--root", root.dir]);
  try {
    session.sendJson(initialize(0, "2025-06-18"));
    session.sendJson({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "grep", arguments: { pattern: "needle" }, _meta: { progressToken: "p1" } },
    });
    const messages = await session.receivedUntil('"id":1') as Array<
      Message & { method?: string; params?: { progressToken: string; progress: number } }
    >;
    const progress = messages.filter((m) => m.method === "notifications/progress");
    assert.ok(progress.length >= 1, "at least one progress notification");
    assert.ok(progress.every((m) => m.params!.progressToken === "p1"));
    const last = messages.findIndex((m) => m.id === 1);
    assert.ok(messages.indexOf(progress[0]) < last, "progress comes before the result");
    const result = messages[last].result as { structuredContent: { matched_lines: number } };
    assert.equal(result.structuredContent.matched_lines, 30);
  } finally {
    await session.close();
    root.remove();
  }
});

test("the server survives a reader that goes away and exits when stdin closes", async () => {
  const root = tempRoot();
  const session = new RawSession(["serve", "--root", root.dir]);
  try {
    session.sendJson(initialize(0, "2025-06-18"));
    await session.received(1);
    session.child.stdout!.destroy(); // the host stops reading: writes now fail with EPIPE
    for (let id = 1; id <= 50; id++) {
      session.sendJson({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: { name: "list", arguments: {} },
      });
    }
    const status = await session.close();
    assert.equal(status, 0, `exit status ${status}; stderr: ${session.stderr}`);
  } finally {
    session.child.kill();
    root.remove();
  }
});

test("ids are echoed exactly as sent, big integers and 1e400 too", async () => {
  await withSession(async (session) => {
    session.sendJson(initialize(1, "2025-06-18"));
    session.send('{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}\n');
    session.send('{"jsonrpc":"2.0","id":1e400,"method":"ping"}\n');
    await session.received(3);
    const [, big, huge] = session.rawLines;
    assert.equal(big, '{"jsonrpc":"2.0","id":123456789012345678901234567890,"result":{}}');
    assert.equal(huge, '{"jsonrpc":"2.0","id":1e400,"result":{}}');
  });
});

test("a line that is not UTF-8 is a parse error, never decoded into a file or an id", async () => {
  const root = tempRoot();
  const session = new RawSession(["serve", "--root", root.dir]);
  const bytes = (text: string) => Uint8Array.from(text, (c) => c.charCodeAt(0));
  try {
    session.sendJson(initialize(1, "2025-06-18"));
    // (Latin-1 "café" as a write's content: decoded, it was written as "caf\uFFFD".)
    const write = (id: number, content: string) =>
      `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"write",` +
      `"arguments":{"path":"a.txt","content":"${content}"}}}\n`;
    const latin1 = bytes(write(2, "caf\xe9\\n"));
    session.send(latin1);
    session.send(bytes('{"jsonrpc":"2.0","id":"\xff","method":"ping"}\n'));
    // (A notification gets no answer, even an error.)
    session.send(bytes('{"jsonrpc":"2.0","method":"notifications/initialized","x":"\xff"}\n'));
    session.send(
      bytes('{"jsonrpc":"2.0","id":123456789012345678901234567890,"x":"\xc3","method":"ping"}\n'),
    );
    session.send(write(5, "café\\n"));
    const replies = await session.received(5) as Message[];
    const [, first, second, third, fifth] = session.rawLines;
    assert.equal(
      first,
      '{"jsonrpc":"2.0","id":2,"error":{"code":-32700,"message":"parse error: the line is not ' +
        `UTF-8 (${
          latin1.length - 1
        } bytes), as JSON-RPC over stdio must be; nothing in it was read"}}`,
    );
    // (An id that is not UTF-8 itself cannot be echoed as sent.)
    assert.equal((replies[2] as Message).id, null);
    assert.equal((replies[2] as Message).error!.code, -32700);
    assert.match(
      third,
      /^\{"jsonrpc":"2.0","id":123456789012345678901234567890,"error":\{"code":-32700,/,
    );
    assert.match(fifth, /"id":5,"result"/);
    assert.equal(second.includes("\ufffd"), false);
    assert.equal(readFileSync(join(root.dir, "a.txt"), "utf8"), "café\n");
    assert.match(session.stderr, /ignored a notification: the line is not UTF-8/);
  } finally {
    await session.close();
    root.remove();
  }
});

test("an oversized line's big id is echoed as sent, and an oversized notification unanswered", async () => {
  // (The cap on a line follows the edit cap: about 4 MiB here.)
  const root = tempRoot();
  const session = new RawSession(["serve", "--root", root.dir, "--max-edit-bytes", "1000"]);
  try {
    session.sendJson(initialize(1, "2025-06-18"));
    const pad = "x".repeat(5 * 1024 * 1024);
    session.send(
      `{"jsonrpc":"2.0","method":"ping","params":{"pad":"${pad}"},"id":9007199254740993}\n`,
    );
    session.send(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"pad":"${pad}"}}\n`);
    session.sendJson({ jsonrpc: "2.0", id: 3, method: "ping" });
    await session.received(3);
    const [, big, after] = session.rawLines;
    assert.match(big, /^\{"jsonrpc":"2.0","id":9007199254740993,"error":\{"code":-32600,/);
    assert.equal(after, '{"jsonrpc":"2.0","id":3,"result":{}}');
    assert.match(session.stderr, /ignored a notification: the line was too long/);
  } finally {
    await session.close();
    root.remove();
  }
});

test("a progress token is echoed as sent, a big integer too", async () => {
  const root = tempRoot();
  for (let i = 0; i < 30; i++) writeFileSync(join(root.dir, `f${i}.txt`), `needle ${i}\n`);
  const session = new RawSession(["serve", "--root", root.dir]);
  try {
    session.sendJson(initialize(0, "2025-06-18"));
    session.send(
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"grep",' +
        '"arguments":{"pattern":"needle"},"_meta":{"progressToken":123456789012345678901234567890}}}\n',
    );
    await session.receivedUntil('"id":1');
    const progress = session.rawLines.filter((line) => line.includes("notifications/progress"));
    assert.ok(progress.length >= 1, "at least one progress notification");
    for (const line of progress) {
      assert.match(line, /"progressToken":123456789012345678901234567890,/);
    }
  } finally {
    await session.close();
    root.remove();
  }
});

test("serve takes its roots as arguments too, as the reference server does", async () => {
  const one = tempRoot();
  const two = tempRoot();
  writeFileSync(join(two.dir, "b.txt"), "in two\n");
  const session = await initialized(["serve", one.dir, two.dir]);
  try {
    const { answers } = await callsWhilePinging(session, [{
      id: "read",
      method: "tools/call",
      params: { name: "read", arguments: { path: join(two.dir, "b.txt") } },
    }]);
    const result = answers.get("read")!.message.result as { content: { text: string }[] };
    assert.equal(unversioned(result.content[0].text), "1\tin two\n");
    assert.equal(await session.close(), 0);
  } finally {
    session.child.kill("SIGKILL");
    one.remove();
    two.remove();
  }
});
