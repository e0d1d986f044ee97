import { test } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { CallContext, ToolDefinition } from "../../src/tools/tool.ts";
import { serveLines, type ServerOptions } from "../../src/mcp/server.ts";
import { IdFinder } from "../../src/mcp/message_lines.ts";

// --- Fakes ------------------------------------------------------------------------------

type Message = {
  jsonrpc: "2.0";
  id?: string | number | null;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
};

const encoder = new TextEncoder();

/** An input the test pushes bytes into and ends when it likes. */
class FakeInput implements AsyncIterable<Uint8Array> {
  #chunks: Uint8Array[] = [];
  #ended = false;
  #wake: (() => void) | undefined;

  push(data: string | Uint8Array): void {
    this.#chunks.push(typeof data === "string" ? encoder.encode(data) : data);
    this.#wake?.();
  }

  end(): void {
    this.#ended = true;
    this.#wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Uint8Array> {
    while (true) {
      const chunk = this.#chunks.shift();
      if (chunk) yield chunk;
      else if (this.#ended) return;
      else await new Promise<void>((resolve) => this.#wake = resolve);
    }
  }
}

/** An output that parses every line written and lets the test wait for messages. */
class FakeOutput {
  texts: string[] = [];
  messages: (Message | Message[])[] = [];
  #waiters: { match: (m: Message | Message[]) => boolean; resolve: (m: unknown) => void }[] = [];

  write(text: string): void {
    this.texts.push(text);
    assert.ok(text.endsWith("\n"), "every write is a whole line");
    for (const line of text.slice(0, -1).split("\n")) {
      const message = JSON.parse(line) as Message | Message[];
      this.messages.push(message);
      this.#waiters = this.#waiters.filter((waiter) => {
        if (!waiter.match(message)) return true;
        waiter.resolve(message);
        return false;
      });
    }
  }

  /** Resolves with the first message (already written or still to come) that matches. */
  waitFor<T = Message>(match: (m: Message | Message[]) => boolean): Promise<T> {
    const found = this.messages.find(match);
    if (found) return Promise.resolve(found as T);
    return new Promise((resolve) =>
      this.#waiters.push({ match, resolve: resolve as (m: unknown) => void })
    );
  }

  response(id: string | number | null): Promise<Message> {
    return this.waitFor((m) => !Array.isArray(m) && m.id === id && m.method === undefined);
  }

  responsesTo(id: string | number): Message[] {
    return this.messages.filter((m): m is Message => !Array.isArray(m) && m.id === id);
  }
}

function text(value: string): { content: { type: "text"; text: string }[] } {
  return { content: [{ type: "text", text: value }] };
}

const annotations = { readOnlyHint: true, idempotentHint: true, openWorldHint: false } as const;

function makeEcho(name = "echo"): ToolDefinition {
  return {
    name,
    title: "Echo",
    description: "Says its text back.",
    inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    outputSchema: { type: "object", properties: { length: { type: "number" } } },
    annotations,
    call(
      args: unknown,
    ): Promise<
      ReturnType<typeof text> & { isError?: boolean; structuredContent?: Record<string, unknown> }
    > {
      const value = typeof args === "object" && args !== null
        ? (args as Record<string, unknown>).text
        : undefined;
      if (typeof value !== "string") {
        return Promise.resolve({ ...text(`"text" must be a string`), isError: true });
      }
      return Promise.resolve({ ...text(value), structuredContent: { length: value.length } });
    },
  };
}

const boom: ToolDefinition = {
  ...makeEcho("boom"),
  title: "Boom",
  call(): Promise<never> {
    throw new Error("kaboom");
  },
};

/** A tool whose calls wait, each under its own key, until the test releases or cancels them. */
class Gate {
  started = new Map<string, { signal: AbortSignal; release: () => void }>();
  #waiters = new Map<string, () => void>();

  whenStarted(key: string): Promise<{ signal: AbortSignal; release: () => void }> {
    const entry = this.started.get(key);
    if (entry) return Promise.resolve(entry);
    return new Promise((resolve) => this.#waiters.set(key, () => resolve(this.started.get(key)!)));
  }

  tool(): ToolDefinition {
    return {
      ...makeEcho("slow"),
      title: "Slow",
      call: (args: unknown, context?: CallContext) => {
        const key = String((args as Record<string, unknown>).key);
        const signal = context!.signal!;
        // Progress must increase: the repeated 1 and the smaller 0.5 are dropped.
        context!.progress?.(1, 3, "first");
        context!.progress?.(1, 3, "repeated");
        context!.progress?.(0.5);
        context!.progress?.(2);
        return new Promise((resolve, reject) => {
          signal.addEventListener("abort", () => reject(signal.reason));
          this.started.set(key, { signal, release: () => resolve(text(`done ${key}`)) });
          this.#waiters.get(key)?.();
        });
      },
    };
  }
}

/** A server on fake streams, with helpers to talk to it. */
function startServer(options: Partial<ServerOptions> = {}) {
  const input = new FakeInput();
  const output = new FakeOutput();
  const logs: string[] = [];
  const gate = new Gate();
  let finished = false;
  const done = serveLines(input, output, {
    tools: [makeEcho(), gate.tool(), boom],
    serverInfo: { name: "linewise-test", version: "9.9.9" },
    instructions: "Find lines with grep, read them, edit with replace_lines.",
    log: (message) => logs.push(message),
    ...options,
  }).then(() => {
    finished = true;
  });
  let nextId = 1;
  return {
    input,
    output,
    logs,
    gate,
    done,
    get finished() {
      return finished;
    },
    send(message: unknown): void {
      input.push(JSON.stringify(message) + "\n");
    },
    async request(
      method: string,
      params?: unknown,
      id: string | number = `req-${nextId++}`,
    ): Promise<Message> {
      input.push(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
      return await output.response(id);
    },
    async initialize(protocolVersion = "2025-06-18", capabilities: unknown = {}): Promise<Message> {
      const response = await this.request("initialize", {
        protocolVersion,
        capabilities,
        clientInfo: { name: "test", version: "1" },
      });
      this.send({ jsonrpc: "2.0", method: "notifications/initialized" });
      return response;
    },
    async close(): Promise<void> {
      input.end();
      await done;
    },
  };
}

/** Lets pending promise callbacks and I/O callbacks run, without measuring any time. */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setTimeout(resolve, 0));
}

// --- Lifecycle --------------------------------------------------------------------------

for (const version of ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]) {
  test(`initialize answers ${version} with ${version}, the server info and the instructions`, async () => {
    const server = startServer();
    const response = await server.initialize(version);
    assert.deepEqual(response.result, {
      protocolVersion: version,
      capabilities: { tools: {} },
      serverInfo: { name: "linewise-test", version: "9.9.9" },
      instructions: "Find lines with grep, read them, edit with replace_lines.",
    });
    await server.close();
  });
}

test("initialize sends the server's title only to versions that define it (2025-06-18 on)", async () => {
  const serverInfo = { name: "linewise-test", version: "9.9.9", title: "Test server" };
  for (
    const [version, titled] of [
      ["2024-11-05", false],
      ["2025-03-26", false],
      ["2025-06-18", true],
      ["2025-11-25", true],
    ] as const
  ) {
    const server = startServer({ serverInfo });
    const response = await server.initialize(version);
    const { title: _, ...untitled } = serverInfo;
    assert.deepEqual(response.result?.serverInfo, titled ? serverInfo : untitled, version);
    await server.close();
  }
});

test("tools/list refuses a cursor it never gave (-32602), and takes a null one for none", async () => {
  const server = startServer();
  await server.initialize();
  for (const cursor of ["bogus", 5, ""]) {
    const response = await server.request("tools/list", { cursor });
    assert.equal(response.error?.code, -32602, JSON.stringify(cursor));
    assert.match(response.error!.message, /invalid cursor .*in one list, and no cursor/);
  }
  assert.equal((await server.request("tools/list", { cursor: null })).error, undefined);
  await server.close();
});

test("initialize answers an unsupported version with the newest", async () => {
  const server = startServer();
  const response = await server.initialize("2099-01-01");
  assert.equal(response.result?.protocolVersion, "2025-11-25");
  await server.close();
});

test("initialize declares tools.listChanged when the server can change its tools", async () => {
  const server = startServer({ onRoots: () => undefined });
  const response = await server.initialize();
  assert.deepEqual(response.result?.capabilities, { tools: { listChanged: true } });
  await server.close();
});

test("initialize without a protocolVersion string is invalid params (-32602)", async () => {
  const server = startServer();
  const response = await server.request("initialize", { capabilities: {} });
  assert.equal(response.error?.code, -32602);
  assert.match(response.error!.message, /protocolVersion/);
  await server.close();
});

test("ping answers an empty result", async () => {
  const server = startServer();
  await server.initialize();
  assert.deepEqual((await server.request("ping")).result, {});
  await server.close();
});

test("requests before initialize are served as in the newest version", async () => {
  const server = startServer();
  assert.deepEqual((await server.request("ping")).result, {});
  const list = await server.request("tools/list");
  const tools = list.result?.tools as Record<string, unknown>[];
  assert.ok(tools[0].outputSchema);
  const call = await server.request("tools/call", { name: "echo", arguments: { text: "hi" } });
  assert.deepEqual(call.result, { ...text("hi"), structuredContent: { length: 2 } });
  await server.close();
});

// --- tools/list and tools/call --------------------------------------------------------

test("tools/list lists name, title, description, schemas and annotations", async () => {
  const server = startServer();
  await server.initialize("2025-06-18");
  const response = await server.request("tools/list", {});
  const tools = response.result?.tools as Record<string, unknown>[];
  assert.deepEqual(tools.map((tool) => tool.name), ["echo", "slow", "boom"]);
  assert.deepEqual(tools[0], {
    name: "echo",
    title: "Echo",
    description: "Says its text back.",
    inputSchema: makeEcho().inputSchema,
    outputSchema: makeEcho().outputSchema,
    annotations,
  });
  await server.close();
});

test("tools/list leaves out what 2024-11-05 does not define", async () => {
  const server = startServer();
  await server.initialize("2024-11-05");
  const response = await server.request("tools/list");
  const tools = response.result?.tools as Record<string, unknown>[];
  assert.deepEqual(Object.keys(tools[0]), ["name", "description", "inputSchema"]);
  await server.close();
});

for (
  const [version, structured] of [
    ["2024-11-05", false],
    ["2025-03-26", false],
    ["2025-06-18", true],
    ["2025-11-25", true],
  ] as const
) {
  test(`tools/call in a ${version} session ${structured ? "includes" : "leaves out"} structuredContent`, async () => {
    const server = startServer();
    await server.initialize(version);
    const response = await server.request("tools/call", {
      name: "echo",
      arguments: { text: "héllo" },
    });
    assert.deepEqual(
      response.result,
      structured ? { ...text("héllo"), structuredContent: { length: 5 } } : text("héllo"),
    );
    await server.close();
  });
}

test("tools/call passes bad arguments to the tool, which answers with isError", async () => {
  const server = startServer();
  await server.initialize();
  const response = await server.request("tools/call", { name: "echo", arguments: { text: 1 } });
  assert.equal(response.result?.isError, true);
  await server.close();
});

test("tools/call of an unknown tool is invalid params (-32602) naming the tools", async () => {
  const server = startServer();
  await server.initialize();
  const response = await server.request("tools/call", { name: "nope", arguments: {} });
  assert.equal(response.error?.code, -32602);
  assert.match(response.error!.message, /unknown tool "nope"; the tools are: echo, slow, boom/);
  await server.close();
});

test("tools/call with arguments that are not an object is invalid params (-32602)", async () => {
  // (It was a tool error, a result with isError: the request fails CallToolRequest's schema.)
  const server = startServer();
  await server.initialize();
  for (const [args, said] of [["str", '"str"'], [[1], "an array"], [3, "3"], [false, "false"]]) {
    const response = await server.request("tools/call", { name: "echo", arguments: args });
    assert.equal(response.error?.code, -32602, JSON.stringify(args));
    assert.equal(
      response.error!.message,
      `tools/call needs "arguments" to be an object of the tool's arguments, got ${said}`,
    );
  }
  for (const params of [{ name: "echo" }, { name: "echo", arguments: null }]) {
    assert.equal((await server.request("tools/call", params)).error, undefined, "none is fine");
  }
  await server.close();
});

test("tools/call without a tool name is invalid params (-32602)", async () => {
  const server = startServer();
  await server.initialize();
  for (const params of [undefined, {}, { name: 3 }, ["echo"]]) {
    const response = await server.request("tools/call", params);
    assert.equal(response.error?.code, -32602, JSON.stringify(params));
  }
  await server.close();
});

test("a tool that throws becomes an isError result without a stack trace", async () => {
  const server = startServer();
  await server.initialize();
  const response = await server.request("tools/call", { name: "boom", arguments: {} });
  assert.equal(response.result?.isError, true);
  const content = response.result?.content as { text: string }[];
  assert.match(content[0].text, /the boom tool failed unexpectedly: kaboom/);
  assert.doesNotMatch(server.output.texts.join(""), /at .*\.ts:\d+/);
  assert.ok(server.logs.some((line) => line.includes("kaboom")));
  await server.close();
});

test("a tool result that cannot be serialised becomes an isError result", async () => {
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  const server = startServer({
    tools: [{
      ...makeEcho("cyclic"),
      call: () => Promise.resolve({ ...text("x"), structuredContent: cyclic }),
    }, {
      ...makeEcho("malformed"),
      call: () => Promise.resolve("not a result" as never),
    }],
  });
  await server.initialize();
  for (const name of ["cyclic", "malformed"]) {
    const response = await server.request("tools/call", { name, arguments: {} });
    assert.equal(response.result?.isError, true, name);
  }
  await server.close();
});

test("a tool list JSON cannot represent gets an internal error (-32603), and the server goes on", async () => {
  const server = startServer({
    tools: [{ ...makeEcho(), inputSchema: { type: "object", default: 1n } }],
  });
  await server.initialize();
  const response = await server.request("tools/list");
  assert.equal(response.error?.code, -32603);
  assert.deepEqual((await server.request("ping")).result, {});
  await server.close();
});

// --- Bad input --------------------------------------------------------------------------

test("malformed JSON is a parse error (-32700) with id null, and the server goes on", async () => {
  const server = startServer();
  await server.initialize();
  server.input.push('{"jsonrpc":"2.0","id":1,"method":\n');
  const error = await server.output.response(null);
  assert.equal(error.error?.code, -32700);
  assert.deepEqual((await server.request("ping")).result, {});
  await server.close();
});

test("JSON nested deeper than the parser's stack is a parse error, and the server goes on", async () => {
  const server = startServer();
  await server.initialize();
  const deep = 100_000;
  server.input.push("[".repeat(deep) + "]".repeat(deep) + "\n");
  const error = await server.output.response(null);
  assert.equal(error.error?.code, -32700);
  assert.equal(error.error?.message, "parse error: the JSON is nested too deeply");
  const args = `${'{"a":'.repeat(deep)}1${"}".repeat(deep)}`;
  server.input.push(
    `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":${args}}}\n`,
  );
  assert.equal((await server.output.response(null)).error?.code, -32700);
  assert.deepEqual((await server.request("ping")).result, {});
  await server.close();
});

const invalidRequests: { name: string; line: unknown; id: string | number | null }[] = [
  { name: "a wrong jsonrpc version", line: { jsonrpc: "1.0", id: 7, method: "ping" }, id: 7 },
  { name: "a missing jsonrpc", line: { id: 8, method: "ping" }, id: 8 },
  { name: "a missing method", line: { jsonrpc: "2.0", id: 9 }, id: 9 },
  { name: "a method that is not a string", line: { jsonrpc: "2.0", id: 10, method: 1 }, id: 10 },
  { name: "a null id", line: { jsonrpc: "2.0", id: null, method: "ping" }, id: null },
  { name: "an object id", line: { jsonrpc: "2.0", id: {}, method: "ping" }, id: null },
  { name: "string params", line: { jsonrpc: "2.0", id: 11, method: "ping", params: "x" }, id: 11 },
  { name: "a JSON string", line: "hello", id: null },
  { name: "a JSON number", line: 42, id: null },
];

for (const { name, line, id } of invalidRequests) {
  test(`${name} is an invalid request (-32600) answered with id ${id}`, async () => {
    const server = startServer();
    await server.initialize();
    server.send(line);
    const response = await server.output.response(id);
    assert.equal(response.error?.code, -32600);
    assert.match(response.error!.message, /^invalid request: /);
    assert.deepEqual((await server.request("ping")).result, {});
    await server.close();
  });
}

test("an unknown method is method not found (-32601)", async () => {
  const server = startServer();
  await server.initialize();
  for (const method of ["resources/list", "prompts/list", "logging/setLevel", "nope"]) {
    const response = await server.request(method, {});
    assert.equal(response.error?.code, -32601, method);
    assert.match(response.error!.message, new RegExp(`method "${method}" is not supported`));
  }
  await server.close();
});

test("notifications are never answered, even unknown or malformed ones", async () => {
  const server = startServer();
  await server.initialize();
  const before = server.output.messages.length;
  server.send({ jsonrpc: "2.0", method: "notifications/whatever" });
  server.send({ jsonrpc: "2.0", method: "ping" });
  server.send({ jsonrpc: "2.0", method: "tools/call", params: { name: "echo" } });
  server.send({ jsonrpc: "1.0", method: "notifications/initialized" });
  server.send({ method: "x", params: "not an object" });
  server.send({ jsonrpc: "2.0", method: 5 });
  server.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 12345 } });
  server.send({ jsonrpc: "2.0", method: "notifications/progress", params: {} });
  server.send({ jsonrpc: "2.0", id: "unknown", result: {} });
  server.send({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "x" } });
  const ping = await server.request("ping", undefined, "last");
  assert.deepEqual(server.output.messages.slice(before), [ping]);
  await server.close();
});

test("blank lines and \\r\\n line endings are accepted", async () => {
  const server = startServer();
  await server.initialize();
  server.input.push('\n\r\n   \n{"jsonrpc":"2.0","id":"crlf","method":"ping"}\r\n');
  assert.deepEqual((await server.output.response("crlf")).result, {});
  assert.equal(server.output.messages.filter((m) => !Array.isArray(m) && m.error).length, 0);
  await server.close();
});

test("a line over the cap is answered with an error for its id and the next request still works", async () => {
  const server = startServer({ maxLineBytes: 1024 });
  await server.initialize();
  server.input.push('{"jsonrpc":"2.0","id":"big","method":"ping","params":{"x":"');
  for (let i = 0; i < 10; i++) server.input.push("x".repeat(500));
  server.input.push('"}}\n{"jsonrpc":"2.0","id":"after","method":"ping"}\n');
  const error = await server.output.response("big");
  assert.equal(error.error?.code, -32600);
  assert.match(error.error!.message, /line was too long .*limit is 1024/);
  assert.deepEqual((await server.output.response("after")).result, {});
  assert.equal(server.output.responsesTo("big").length, 1);
  await server.close();
});

test("a line over the cap without an id it can tell is answered with id null", async () => {
  const server = startServer({ maxLineBytes: 64 });
  await server.initialize();
  server.input.push(
    `{"jsonrpc":"2.0","method":"ping","params":{"x":"${"x".repeat(100)}"},"id":null}\n`,
  );
  const error = await server.output.response(null);
  assert.match(error.error!.message, /line was too long .*limit is 64/);
  await server.close();
});

test("a line over the default 4 MiB cap is refused and the server goes on", async () => {
  const server = startServer();
  await server.initialize();
  const chunk = "y".repeat(256 * 1024);
  server.input.push(
    '{"jsonrpc":"2.0","id":"huge","method":"tools/call","params":{"name":"echo","arguments":{"text":"',
  );
  for (let i = 0; i < 17; i++) server.input.push(chunk);
  server.input.push('"}}}\n');
  const error = await server.output.response("huge");
  assert.match(error.error!.message, /too long .*limit is 4194304/);
  assert.deepEqual((await server.request("ping")).result, {});
  await server.close();
});

test("a multi-byte character split across chunks arrives whole", async () => {
  const server = startServer();
  await server.initialize();
  const bytes = encoder.encode(
    JSON.stringify({
      jsonrpc: "2.0",
      id: "utf8",
      method: "tools/call",
      params: { name: "echo", arguments: { text: "é😀" } },
    }) + "\r\n",
  );
  const split = bytes.indexOf(0xc3) + 1;
  const split2 = bytes.indexOf(0xf0) + 2;
  server.input.push(bytes.slice(0, split));
  server.input.push(bytes.slice(split, split2));
  server.input.push(bytes.slice(split2, bytes.length - 1));
  server.input.push(bytes.slice(bytes.length - 1));
  const response = await server.output.response("utf8");
  assert.deepEqual(response.result?.content, text("é😀").content);
  await server.close();
});

// --- Batches ----------------------------------------------------------------------------

test("a batch in a 2025-06-18 session is an invalid request (-32600) with id null", async () => {
  const server = startServer();
  await server.initialize("2025-06-18");
  server.send([{ jsonrpc: "2.0", id: 1, method: "ping" }]);
  const response = await server.output.response(null);
  assert.equal(response.error?.code, -32600);
  assert.match(response.error!.message, /only in a 2025-03-26 session/);
  assert.deepEqual(server.output.responsesTo(1), []);
  await server.close();
});

test("a batch before initialize is an invalid request (-32600)", async () => {
  const server = startServer();
  server.send([{ jsonrpc: "2.0", id: 1, method: "ping" }]);
  assert.equal((await server.output.response(null)).error?.code, -32600);
  await server.close();
});

test("a batch in a 2025-03-26 session is answered with one array", async () => {
  const server = startServer();
  await server.initialize("2025-03-26");
  server.send([
    { jsonrpc: "2.0", id: "a", method: "ping" },
    { jsonrpc: "2.0", method: "notifications/whatever" },
    {
      jsonrpc: "2.0",
      id: "b",
      method: "tools/call",
      params: { name: "echo", arguments: { text: "x" } },
    },
    { jsonrpc: "2.0", id: "c", method: "nope" },
    { jsonrpc: "2.0", id: "d", method: "initialize", params: { protocolVersion: "2025-03-26" } },
    5,
  ]);
  const batch = await server.output.waitFor<Message[]>((m) => Array.isArray(m));
  const byId = new Map(batch.map((m) => [m.id, m]));
  assert.equal(batch.length, 5);
  assert.deepEqual(byId.get("a")?.result, {});
  assert.deepEqual(byId.get("b")?.result, text("x"));
  assert.equal(byId.get("c")?.error?.code, -32601);
  assert.equal(byId.get("d")?.error?.code, -32600);
  assert.equal(byId.get(null)?.error?.code, -32600);
  await server.close();
});

test("an empty batch in a 2025-03-26 session is an invalid request (-32600)", async () => {
  const server = startServer();
  await server.initialize("2025-03-26");
  server.send([]);
  const response = await server.output.response(null);
  assert.equal(response.error?.code, -32600);
  assert.match(response.error!.message, /empty/);
  await server.close();
});

test("a batch of notifications only gets no answer", async () => {
  const server = startServer();
  await server.initialize("2025-03-26");
  const before = server.output.messages.length;
  server.send([{ jsonrpc: "2.0", method: "notifications/whatever" }]);
  const ping = await server.request("ping");
  assert.deepEqual(server.output.messages.slice(before), [ping]);
  await server.close();
});

// --- Concurrency, cancellation, progress ------------------------------------------------

test("1,000 pipelined requests are each answered exactly once", async () => {
  const server = startServer();
  await server.initialize();
  let lines = "";
  for (let i = 0; i < 1000; i++) {
    const message = i % 3 === 0 ? { jsonrpc: "2.0", id: i, method: "ping" } : {
      jsonrpc: "2.0",
      id: i,
      method: "tools/call",
      params: { name: "echo", arguments: { text: `t${i}` } },
    };
    lines += JSON.stringify(message) + "\n";
  }
  server.input.push(lines);
  await server.close();
  const counts = new Map<unknown, number>();
  for (const message of server.output.messages) {
    if (!Array.isArray(message) && typeof message.id === "number") {
      counts.set(message.id, (counts.get(message.id) ?? 0) + 1);
    }
  }
  for (let i = 0; i < 1000; i++) assert.equal(counts.get(i), 1, `request ${i}`);
  const response = server.output.responsesTo(998)[0];
  assert.deepEqual(response.result?.content, text("t998").content);
});

test("a cancelled call gets no response, its signal is aborted, other calls go on", async () => {
  const server = startServer();
  await server.initialize();
  server.send({
    jsonrpc: "2.0",
    id: "x",
    method: "tools/call",
    params: { name: "slow", arguments: { key: "x" } },
  });
  server.send({
    jsonrpc: "2.0",
    id: "y",
    method: "tools/call",
    params: { name: "slow", arguments: { key: "y" } },
  });
  const x = await server.gate.whenStarted("x");
  const y = await server.gate.whenStarted("y");
  server.send({
    jsonrpc: "2.0",
    method: "notifications/cancelled",
    params: { requestId: "x", reason: "user" },
  });
  assert.deepEqual((await server.request("ping")).result, {});
  y.release();
  assert.deepEqual((await server.output.response("y")).result, text("done y"));
  await server.close();
  assert.equal(x.signal.aborted, true);
  assert.equal(x.signal.reason, "user");
  assert.equal(y.signal.aborted, false);
  assert.deepEqual(server.output.responsesTo("x"), []);
});

test("a cancelled call that finishes anyway gets no response", async () => {
  const server = startServer({
    tools: [{
      ...makeEcho("stubborn"),
      call: () => new Promise((resolve) => setTimeout(() => resolve(text("late")), 0)),
    }],
  });
  await server.initialize();
  server.send({
    jsonrpc: "2.0",
    id: 5,
    method: "tools/call",
    params: { name: "stubborn", arguments: {} },
  });
  server.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 5 } });
  await server.close();
  assert.deepEqual(server.output.responsesTo(5), []);
});

test("a cancelled write tool that finishes anyway is answered: its change was made", async () => {
  const server = startServer({
    tools: [{
      ...makeEcho("committing"),
      annotations: { ...annotations, readOnlyHint: false },
      call: () => new Promise((resolve) => setTimeout(() => resolve(text("written")), 0)),
    }],
  });
  await server.initialize();
  server.send({
    jsonrpc: "2.0",
    id: 6,
    method: "tools/call",
    params: { name: "committing", arguments: {} },
  });
  server.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 6 } });
  await server.close();
  assert.equal(server.output.responsesTo(6).length, 1);
});

test("in 2026-07-28, a cancelled write tool that finishes anyway is not answered", async () => {
  // (That era's stdio transport sends nothing more for a cancelled request.)
  const server = startServer({
    tools: [{
      ...makeEcho("committing"),
      annotations: { ...annotations, readOnlyHint: false },
      call: () => new Promise((resolve) => setTimeout(() => resolve(text("written")), 0)),
    }],
  });
  const _meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
  };
  server.send({
    jsonrpc: "2.0",
    id: 6,
    method: "tools/call",
    params: { name: "committing", arguments: {}, _meta },
  });
  server.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 6 } });
  server.send({ jsonrpc: "2.0", id: 7, method: "tools/list", params: { _meta } });
  await server.output.response(7);
  await new Promise((resolve) => setTimeout(resolve, 20));
  await server.close();
  assert.equal(server.output.responsesTo(6).length, 0);
});

test("in 2026-07-28, subscriptions/listen is acknowledged with none agreed, held until cancelled or the end", async () => {
  // (It was -32601: every implementation of that era must take the message patterns.)
  const server = startServer();
  const _meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
  };
  server.send({
    jsonrpc: "2.0",
    id: "sub",
    method: "subscriptions/listen",
    params: { _meta, notifications: { toolsListChanged: true } },
  });
  server.send({ jsonrpc: "2.0", id: "bad", method: "subscriptions/listen", params: { _meta } });
  server.send({
    jsonrpc: "2.0",
    id: "again",
    method: "subscriptions/listen",
    params: { _meta, notifications: {} },
  });
  server.send({
    jsonrpc: "2.0",
    id: "again",
    method: "subscriptions/listen",
    params: { _meta, notifications: {} },
  });
  assert.equal((await server.output.response("bad")).error?.code, -32602);
  assert.equal((await server.output.response("again")).error?.code, -32600, "an id in use");
  const acks = server.output.messages.filter((m) =>
    !Array.isArray(m) && m.method === "notifications/subscriptions/acknowledged"
  );
  assert.deepEqual(acks.map((m) => !Array.isArray(m) && m.params), [
    { _meta: { "io.modelcontextprotocol/subscriptionId": "sub" }, notifications: {} },
    { _meta: { "io.modelcontextprotocol/subscriptionId": "again" }, notifications: {} },
  ]);
  // (An open subscription holds its id: a call with it is refused, and so is the other way.)
  server.send({
    jsonrpc: "2.0",
    id: "sub",
    method: "tools/call",
    params: { _meta, name: "echo", arguments: { text: "x" } },
  });
  assert.equal((await server.output.response("sub")).error?.code, -32600);
  server.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "sub" } });
  server.send({
    jsonrpc: "2.0",
    id: "sub",
    method: "subscriptions/listen",
    params: { _meta, notifications: {} },
  });
  await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(server.output.responsesTo("sub").length, 1, "only the call's refusal");
  // The input ends: each subscription still open ends gracefully, answered; the one cancelled
  // was not.
  await server.close();
  for (const id of ["sub", "again"]) {
    const ended = server.output.responsesTo(id).at(-1)!;
    assert.equal(ended.error, undefined, id);
    assert.equal(ended.result?.resultType, "complete");
    const meta = ended.result?._meta as Record<string, unknown>;
    assert.equal(meta["io.modelcontextprotocol/subscriptionId"], id);
    assert.ok(meta["io.modelcontextprotocol/serverInfo"] !== undefined);
  }
  assert.equal(server.output.responsesTo("sub").length, 2, "the refusal, and the end");
});

test("a call waiting for a free slot can be cancelled, and waiting calls run in turn", async () => {
  const server = startServer({ maxConcurrentCalls: 1 });
  await server.initialize();
  server.send({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "slow", arguments: { key: "first" } },
  });
  server.send({
    jsonrpc: "2.0",
    id: 2,
    method: "tools/call",
    params: { name: "slow", arguments: { key: "queued" } },
  });
  server.send({
    jsonrpc: "2.0",
    id: 3,
    method: "tools/call",
    params: { name: "echo", arguments: { text: "third" } },
  });
  const first = await server.gate.whenStarted("first");
  server.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 2 } });
  await server.request("ping");
  assert.equal(server.gate.started.has("queued"), false);
  first.release();
  assert.deepEqual((await server.output.response(3)).result?.content, text("third").content);
  await server.close();
  assert.equal(server.gate.started.has("queued"), false);
  assert.deepEqual(server.output.responsesTo(2), []);
  assert.equal(server.output.responsesTo(1).length, 1);
});

test("a request id already in use by a running call is refused (-32600)", async () => {
  const server = startServer();
  await server.initialize();
  server.send({
    jsonrpc: "2.0",
    id: "dup",
    method: "tools/call",
    params: { name: "slow", arguments: { key: "d" } },
  });
  const running = await server.gate.whenStarted("d");
  server.send({
    jsonrpc: "2.0",
    id: "dup",
    method: "tools/call",
    params: { name: "echo", arguments: { text: "x" } },
  });
  const refusal = await server.output.response("dup");
  assert.equal(refusal.error?.code, -32600);
  running.release();
  await server.close();
  assert.equal(server.output.responsesTo("dup").length, 2);
});

test("progress notifications carry the token, increase, and come before the response", async () => {
  const server = startServer();
  await server.initialize("2025-06-18");
  server.send({
    jsonrpc: "2.0",
    id: "p",
    method: "tools/call",
    params: { name: "slow", arguments: { key: "p" }, _meta: { progressToken: "tok" } },
  });
  (await server.gate.whenStarted("p")).release();
  await server.output.response("p");
  const progress = server.output.messages.filter((m) =>
    !Array.isArray(m) && m.method === "notifications/progress"
  ) as Message[];
  assert.deepEqual(progress.map((m) => m.params), [
    { progressToken: "tok", progress: 1, total: 3, message: "first" },
    { progressToken: "tok", progress: 2 },
  ]);
  const responseIndex = server.output.messages.findIndex((m) => !Array.isArray(m) && m.id === "p");
  assert.ok(server.output.messages.indexOf(progress[1]) < responseIndex);
  await server.close();
});

test("progress notifications leave out the message in a 2024-11-05 session", async () => {
  const server = startServer();
  await server.initialize("2024-11-05");
  server.send({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "slow", arguments: { key: "k" }, _meta: { progressToken: 7 } },
  });
  (await server.gate.whenStarted("k")).release();
  await server.output.response(1);
  const first = await server.output.waitFor((m) =>
    !Array.isArray(m) && m.method === "notifications/progress"
  );
  assert.deepEqual(first.params, { progressToken: 7, progress: 1, total: 3 });
  await server.close();
});

test("no progress notifications without a progress token", async () => {
  const server = startServer();
  await server.initialize();
  server.send({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "slow", arguments: { key: "n" } },
  });
  (await server.gate.whenStarted("n")).release();
  await server.output.response(1);
  await server.close();
  assert.equal(
    server.output.messages.some((m) => !Array.isArray(m) && m.method === "notifications/progress"),
    false,
  );
});

// --- Roots ------------------------------------------------------------------------------

test("the roots flow: roots/list after initialized and on list_changed, paths to onRoots", async () => {
  const seen: string[][] = [];
  const narrowed = [makeEcho("echo")];
  let answer: ToolDefinition[] | undefined = narrowed;
  const server = startServer({
    onRoots: (paths) => {
      seen.push(paths);
      return Promise.resolve(answer);
    },
  });
  const root = pathToFileURL("/tmp/project a").href;
  await server.initialize("2025-06-18", { roots: { listChanged: true } });

  const first = await server.output.waitFor((m) => !Array.isArray(m) && m.method === "roots/list");
  assert.ok(typeof first.id === "string" || typeof first.id === "number");
  server.send({
    jsonrpc: "2.0",
    id: first.id,
    result: { roots: [{ uri: root }, { uri: "https://x.test/" }] },
  });
  await server.output.waitFor((m) =>
    !Array.isArray(m) && m.method === "notifications/tools/list_changed"
  );
  assert.deepEqual(seen, [[fileURLToPath(root)]]);
  assert.ok(server.logs.some((line) => line.includes("https://x.test/")));
  const list = await server.request("tools/list");
  assert.deepEqual((list.result?.tools as { name: string }[]).map((t) => t.name), ["echo"]);

  // A list_changed asks again, with a new id; an error answer keeps the tools.
  server.send({ jsonrpc: "2.0", method: "notifications/roots/list_changed" });
  const second = await server.output.waitFor((m) =>
    !Array.isArray(m) && m.method === "roots/list" && m.id !== first.id
  );
  server.send({
    jsonrpc: "2.0",
    id: second.id,
    error: { code: -32603, message: "no roots today" },
  });
  await server.request("ping");
  assert.ok(server.logs.some((line) => line.includes("no roots today")));

  // An empty list changes nothing and says nothing (the Inspector sends one).
  server.send({ jsonrpc: "2.0", method: "notifications/roots/list_changed" });
  const empty = await server.output.waitFor((m) =>
    !Array.isArray(m) && m.method === "roots/list" && m.id !== first.id && m.id !== second.id
  );
  server.send({ jsonrpc: "2.0", id: empty.id, result: { roots: [] } });
  await server.request("ping");
  assert.ok(!server.logs.some((line) => /none of the client's roots/.test(line)));

  // Nothing intersects: onRoots says undefined, the tools stay, the log says so.
  answer = undefined;
  server.send({ jsonrpc: "2.0", method: "notifications/roots/list_changed" });
  const third = await server.output.waitFor((m) =>
    !Array.isArray(m) && m.method === "roots/list" &&
    ![first.id, second.id, empty.id].includes(m.id as number)
  );
  server.send({ jsonrpc: "2.0", id: third.id, result: { roots: [{ uri: root }] } });
  await server.close();
  assert.equal(seen.length, 2);
  assert.ok(server.logs.some((line) => /none of the client's roots/.test(line)));
  const listChanged = server.output.messages.filter((m) =>
    !Array.isArray(m) && m.method === "notifications/tools/list_changed"
  );
  assert.equal(listChanged.length, 1);
});

test("a call that comes before the client's roots waits for them and runs with the narrowed tools", async () => {
  const server = startServer({
    onRoots: () =>
      Promise.resolve([{ ...makeEcho(), call: () => Promise.resolve(text("narrowed")) }]),
  });
  await server.initialize("2025-06-18", { roots: {} });
  server.send({
    jsonrpc: "2.0",
    id: "early",
    method: "tools/call",
    params: { name: "echo", arguments: { text: "wide" } },
  });
  const request = await server.output.waitFor((m) =>
    !Array.isArray(m) && m.method === "roots/list"
  );
  await server.request("ping"); // answered while the call waits
  assert.deepEqual(server.output.responsesTo("early"), []);
  server.send({ jsonrpc: "2.0", id: request.id, result: { roots: [{ uri: "file:///x" }] } });
  const answer = await server.output.response("early");
  assert.deepEqual(answer.result?.content, text("narrowed").content);
  await server.close();
});

test("a call waiting for the client's roots takes its arrival as it comes, and lets it go", async () => {
  const taken: string[] = [];
  const released: string[] = [];
  const given: unknown[] = [];
  /** An echo that takes an arrival, named by the tools it belongs to. */
  const marking = (tools: string) => ({
    ...makeEcho(),
    arrived: () => {
      taken.push(tools);
      let held = true; // (a release again does nothing, as CallArrival says)
      return {
        mark: taken.length,
        release: () => void (held && released.push(tools), held = false),
      };
    },
    call: (_args: unknown, context?: CallContext) => (
      given.push(context?.arrival?.mark), Promise.resolve(text(tools))
    ),
  });
  const kept = { tools: true };
  const server = startServer({
    tools: [marking("first")],
    onRoots: () => Promise.resolve(kept.tools ? undefined : [marking("narrowed")]),
  });
  await server.initialize("2025-06-18", { roots: {} });
  const ask = (id: string) =>
    server.send({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "echo", arguments: { text: "x" } },
    });
  ask("kept");
  const first = await server.output.waitFor((m) => !Array.isArray(m) && m.method === "roots/list");
  await server.request("ping"); // (answered once the call before it is waiting)
  // (Taken while the call waits, before the roots come.)
  assert.deepEqual([taken, given], [["first"], []]);
  server.send({ jsonrpc: "2.0", id: first.id, result: { roots: [] } });
  await server.output.response("kept");
  assert.deepEqual(
    [given, released],
    [[1], ["first"]],
    "the tools kept: the arrival is the call's",
  );
  // The roots change the tools while a call waits: its arrival goes, and the new tools take one.
  kept.tools = false;
  server.send({ jsonrpc: "2.0", method: "notifications/roots/list_changed" });
  const second = await server.output.waitFor((m) =>
    !Array.isArray(m) && m.method === "roots/list" && m.id !== first.id
  );
  ask("replaced");
  await server.request("ping");
  server.send({ jsonrpc: "2.0", id: second.id, result: { roots: [{ uri: "file:///x" }] } });
  assert.deepEqual(
    (await server.output.response("replaced")).result?.content,
    text("narrowed").content,
  );
  assert.deepEqual(taken, ["first", "first", "narrowed"]);
  assert.deepEqual(given, [1, 3]);
  assert.deepEqual(released, ["first", "first", "narrowed"]);
  await server.close();
});

test("a call sent right after the client's roots changed waits for them too", async () => {
  let narrowings = 0;
  const server = startServer({
    onRoots: () => {
      const which = `roots ${++narrowings}`;
      return Promise.resolve([{ ...makeEcho(), call: () => Promise.resolve(text(which)) }]);
    },
  });
  await server.initialize("2025-06-18", { roots: {} });
  const first = await server.output.waitFor((m) => !Array.isArray(m) && m.method === "roots/list");
  server.send({ jsonrpc: "2.0", id: first.id, result: { roots: [{ uri: "file:///x" }] } });
  assert.deepEqual(
    (await server.request("tools/call", { name: "echo", arguments: { text: "x" } })).result
      ?.content,
    text("roots 1").content,
  );
  server.send({ jsonrpc: "2.0", method: "notifications/roots/list_changed" });
  server.send({
    jsonrpc: "2.0",
    id: "right-after",
    method: "tools/call",
    params: { name: "echo", arguments: { text: "x" } },
  });
  const second = await server.output.waitFor((m) =>
    !Array.isArray(m) && m.method === "roots/list" && m.id !== first.id
  );
  await server.request("ping"); // answered while the call waits
  assert.deepEqual(server.output.responsesTo("right-after"), []);
  server.send({ jsonrpc: "2.0", id: second.id, result: { roots: [{ uri: "file:///y" }] } });
  assert.deepEqual(
    (await server.output.response("right-after")).result?.content,
    text("roots 2").content,
  );
  await server.close();
});

test("a call waiting for the client's roots can be cancelled, and gets no answer", async () => {
  const server = startServer({ onRoots: () => Promise.resolve(undefined) });
  await server.initialize("2025-06-18", { roots: {} });
  server.send({
    jsonrpc: "2.0",
    id: "waits",
    method: "tools/call",
    params: { name: "echo", arguments: { text: "x" } },
  });
  server.send({
    jsonrpc: "2.0",
    method: "notifications/cancelled",
    params: { requestId: "waits" },
  });
  const request = await server.output.waitFor((m) =>
    !Array.isArray(m) && m.method === "roots/list"
  );
  server.send({ jsonrpc: "2.0", id: request.id, result: { roots: [] } });
  await server.close();
  assert.deepEqual(server.output.responsesTo("waits"), []);
});

test("calls wait for the client's roots only so long, then run with the tools there are", async () => {
  const server = startServer({ onRoots: () => Promise.resolve(undefined), rootsWaitMs: 50 });
  await server.initialize("2025-06-18", { roots: {} });
  const answer = await server.request("tools/call", { name: "echo", arguments: { text: "late" } });
  assert.deepEqual(answer.result?.content, text("late").content);
  assert.ok(server.logs.some((line) => /roots did not come within 50 ms/.test(line)));
  await server.close();
});

test("calls waiting for the client's roots run when the input ends", async () => {
  const server = startServer({ onRoots: () => Promise.resolve(undefined), rootsWaitMs: 60_000 });
  await server.initialize("2025-06-18", { roots: {} });
  server.send({
    jsonrpc: "2.0",
    id: "last",
    method: "tools/call",
    params: { name: "echo", arguments: { text: "bye" } },
  });
  await server.close();
  assert.equal(server.output.responsesTo("last").length, 1);
});

test("no roots/list when the client does not declare roots", async () => {
  let called = false;
  const server = startServer({
    onRoots: () => {
      called = true;
      return undefined;
    },
  });
  await server.initialize("2025-06-18", {});
  server.send({ jsonrpc: "2.0", method: "notifications/roots/list_changed" });
  await server.request("ping");
  await server.close();
  assert.equal(
    server.output.messages.some((m) => !Array.isArray(m) && m.method === "roots/list"),
    false,
  );
  assert.equal(called, false);
});

test("an answer to an older roots/list is ignored once a newer one was sent", async () => {
  const seen: string[][] = [];
  const server = startServer({
    onRoots: (paths) => {
      seen.push(paths);
      return undefined;
    },
  });
  await server.initialize("2025-06-18", { roots: {} });
  const first = await server.output.waitFor((m) => !Array.isArray(m) && m.method === "roots/list");
  server.send({ jsonrpc: "2.0", method: "notifications/roots/list_changed" });
  const second = await server.output.waitFor((m) =>
    !Array.isArray(m) && m.method === "roots/list" && m.id !== first.id
  );
  server.send({ jsonrpc: "2.0", id: first.id, result: { roots: [{ uri: "file:///old" }] } });
  server.send({ jsonrpc: "2.0", id: second.id, result: { roots: [{ uri: "file:///new" }] } });
  await server.close();
  assert.deepEqual(seen, [[fileURLToPath("file:///new")]]);
});

test("a throwing onRoots keeps the tools and is logged", async () => {
  const server = startServer({
    onRoots: () => {
      throw new Error("store broke");
    },
  });
  await server.initialize("2025-06-18", { roots: {} });
  const request = await server.output.waitFor((m) =>
    !Array.isArray(m) && m.method === "roots/list"
  );
  server.send({ jsonrpc: "2.0", id: request.id, result: { roots: [{ uri: "file:///new" }] } });
  await server.close();
  assert.ok(server.logs.some((line) => line.includes("store broke")));
});

test("an onRoots that returns something other than tools is logged, and the tools stay", async () => {
  const server = startServer({ onRoots: () => "nonsense" as never });
  await server.initialize("2025-06-18", { roots: {} });
  const request = await server.output.waitFor((m) =>
    !Array.isArray(m) && m.method === "roots/list"
  );
  server.send({ jsonrpc: "2.0", id: request.id, result: { roots: [{ uri: "file:///new" }] } });
  const list = await server.request("tools/list");
  assert.equal((list.result?.tools as unknown[]).length, 3);
  await server.close();
  assert.ok(server.logs.some((line) => line.includes("onRoots must return")));
});

// --- End of input and broken output -----------------------------------------------------

test("end of input waits for the call in flight and resolves after its response is written", async () => {
  const server = startServer();
  await server.initialize();
  server.send({
    jsonrpc: "2.0",
    id: "last",
    method: "tools/call",
    params: { name: "slow", arguments: { key: "eof" } },
  });
  const call = await server.gate.whenStarted("eof");
  server.input.end();
  await settle();
  assert.equal(server.finished, false);
  call.release();
  await server.done;
  assert.deepEqual(server.output.responsesTo("last")[0].result, text("done eof"));
});

test("a last line without a newline before end of input is answered", async () => {
  const server = startServer();
  server.input.push('{"jsonrpc":"2.0","id":"tail","method":"ping"}');
  await server.close();
  assert.equal(server.output.responsesTo("tail").length, 1);
});

function epipe(): Error {
  return Object.assign(new Error("write EPIPE"), { code: "EPIPE" });
}

for (const mode of ["throws", "rejects"] as const) {
  test(`an output that ${mode} EPIPE stops the server cleanly, even with input still open`, async () => {
    const input = new FakeInput();
    const gate = new Gate();
    const logs: string[] = [];
    let writes = 0;
    const output = {
      write(): void | Promise<void> {
        writes++;
        if (writes <= 1) return;
        if (mode === "throws") throw epipe();
        return Promise.reject(epipe());
      },
    };
    const done = serveLines(input, output, {
      tools: [gate.tool(), makeEcho()],
      serverInfo: { name: "t", version: "1" },
      log: (message) => logs.push(message),
    });
    input.push('{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
    input.push(
      '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","arguments":{"key":"k"}}}\n',
    );
    const running = await gate.whenStarted("k");
    input.push('{"jsonrpc":"2.0","id":3,"method":"ping"}\n');
    // The input is never ended: the broken output alone must end the session.
    await done;
    assert.equal(running.signal.aborted, true);
    assert.equal(writes, 2);
    assert.ok(logs.some((line) => line.includes("EPIPE")));
  });
}

// --- Fuzz -------------------------------------------------------------------------------

/** mulberry32: a small seeded PRNG, so a failure replays exactly. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

test("ids are echoed exactly as sent, also numbers a double cannot hold", async () => {
  const server = startServer();
  await server.initialize();
  const ids = ["123456789012345678901234567890", "1e400", "1.0", "-0", "12345678901234567", "7"];
  for (const id of ids) server.input.push(`{"jsonrpc":"2.0","id":${id},"method":"ping"}\n`);
  // A cancellation names the call by the same text.
  server.input.push(
    `{"jsonrpc":"2.0","id":98765432109876543210,"method":"tools/call","params":{"name":"slow","arguments":{"key":"big"}}}\n`,
  );
  await server.gate.whenStarted("big");
  server.input.push(
    `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":98765432109876543210}}\n`,
  );
  await server.request("ping");
  await server.close();
  const texts = server.output.texts.join("");
  for (const id of ids) assert.ok(texts.includes(`"id":${id},"result":{}`), `id ${id}`);
  assert.doesNotMatch(texts, /98765432109876543210/, "the cancelled call got no answer");
  assert.equal(server.gate.started.get("big")!.signal.aborted, true);
});

test("10,000 random and mutated lines: every answerable request answered once, ping still works", async () => {
  const random = prng(20250618);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  const templates: ((id: string | number) => unknown)[] = [
    (id) => ({ jsonrpc: "2.0", id, method: "ping" }),
    (id) => ({ jsonrpc: "2.0", id, method: "tools/list", params: {} }),
    (id) => ({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "echo", arguments: { text: 'ü\r"' + id } },
    }),
    (id) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "boom", arguments: {} } }),
    (id) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "nope" } }),
    (id) => ({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "echo", arguments: [1, { a: null }] },
    }),
    (id) => ({ jsonrpc: "2.0", id, method: "resources/list" }),
    (id) => ({ jsonrpc: "2.0", id, method: "ping", params: [] }),
    () => ({ jsonrpc: "2.0", method: "notifications/initialized" }),
    () => ({ jsonrpc: "2.0", method: "notifications/roots/list_changed" }),
    (id) => ({ jsonrpc: "2.0", id, result: {} }),
    (id) => [{ jsonrpc: "2.0", id, method: "ping" }],
    () => [],
    () => null,
    (id) => ({ jsonrpc: "1.0", id, method: "ping" }),
  ];
  const noise = [...encoder.encode('{}[]":,\\0123456789.-+eE truefalsnul\r\t\u00e9')];
  const lines: Uint8Array[] = [];
  for (let i = 0; i < 10_000; i++) {
    const id = random() < 0.5 ? i : `r${i}`;
    let bytes = encoder.encode(JSON.stringify(pick(templates)(id)));
    const mutations = random() < 0.4 ? 0 : Math.floor(random() * 4) + 1;
    for (let m = 0; m < mutations; m++) {
      const at = Math.floor(random() * (bytes.length + 1));
      const kind = random();
      const next = new Uint8Array(bytes.length + 1);
      if (kind < 0.3 && bytes.length > 0) {
        bytes = Uint8Array.from([...bytes.subarray(0, at), ...bytes.subarray(at + 1)]);
      } else if (kind < 0.6) {
        next.set(bytes.subarray(0, at));
        next[at] = random() < 0.8 ? pick(noise) : Math.floor(random() * 256);
        next.set(bytes.subarray(at), at + 1);
        bytes = next;
      } else if (kind < 0.8 && bytes.length > 0) {
        bytes = bytes.slice(0, at);
      } else {
        bytes = Uint8Array.from(bytes, (b) => (random() < 0.05 ? Math.floor(random() * 256) : b));
      }
    }
    // A newline inside would make two lines; the oracle below works on whole lines.
    lines.push(Uint8Array.from(bytes, (b) => (b === 0x0a ? 0x20 : b)));
  }

  // The oracle: which ids must be answered, and how often, read as the server reads them.
  const expected = new Map<string, number>();
  // (An id kept as its text is the number the answer's JSON reads back.)
  const key = (id: unknown): string =>
    typeof id === "object" ? key(JSON.parse(JSON.stringify(id))) : `${typeof id}:${String(id)}`;
  const decoder = new TextDecoder("utf-8", { fatal: true });
  for (const bytes of lines) {
    let text: string;
    try {
      text = decoder.decode(bytes);
    } catch {
      // (Not UTF-8: a parse error, answered where the id can be told as the bytes go by.)
      const finder = new IdFinder();
      finder.feed(bytes);
      const id = finder.id();
      if (id !== undefined) expected.set(key(id), (expected.get(key(id)) ?? 0) + 1);
      continue;
    }
    if (text.endsWith("\r")) text = text.slice(0, -1);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      continue;
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) continue;
    const message = value as Record<string, unknown>;
    const id = message.id;
    // (Any JSON number is an id, 1e400 too: it is answered with its text as sent.)
    const usableId = typeof id === "string" || typeof id === "number";
    const answerable = "method" in message || !("result" in message || "error" in message);
    if ("id" in message && usableId && answerable) {
      expected.set(key(id), (expected.get(key(id)) ?? 0) + 1);
    }
  }

  const server = startServer({ tools: [makeEcho(), boom] });
  await server.initialize("2025-06-18");
  const all = new Uint8Array(lines.reduce((n, line) => n + line.length + 1, 0));
  let offset = 0;
  for (const line of lines) {
    all.set(line, offset);
    all[offset + line.length] = 0x0a;
    offset += line.length + 1;
  }
  for (let start = 0; start < all.length;) {
    const size = 1 + Math.floor(random() * 4096);
    server.input.push(all.slice(start, start + size));
    start += size;
  }
  const ping = await server.request("ping", undefined, "after-fuzz");
  assert.deepEqual(ping.result, {});
  await server.close();

  const actual = new Map<string, number>();
  for (const message of server.output.messages) {
    for (const m of Array.isArray(message) ? message : [message]) {
      const ours = typeof m.id === "string" && (m.id.startsWith("req-") || m.id === "after-fuzz");
      if (m.method === undefined && m.id !== null && m.id !== undefined && !ours) {
        actual.set(key(m.id), (actual.get(key(m.id)) ?? 0) + 1);
      }
    }
  }
  assert.ok(expected.size > 3000, `the fuzz made ${expected.size} answerable requests`);
  assert.deepEqual(actual, expected);
});
