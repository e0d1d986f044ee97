import { test } from "node:test";
import assert from "node:assert/strict";
import { type OversizedLine, readMessageLines } from "../../src/mcp/message_lines.ts";

const encoder = new TextEncoder();

async function* chunksOf(...parts: (string | number[] | Uint8Array)[]): AsyncGenerator<Uint8Array> {
  for (const part of parts) {
    yield typeof part === "string"
      ? encoder.encode(part)
      : part instanceof Uint8Array
      ? part
      : new Uint8Array(part);
  }
}

async function collect(
  input: AsyncIterable<Uint8Array>,
  maxLineBytes?: number,
): Promise<(string | OversizedLine)[]> {
  const lines: (string | OversizedLine)[] = [];
  for await (const line of readMessageLines(input, { maxLineBytes })) lines.push(line);
  return lines;
}

const cases: { name: string; chunks: (string | number[])[]; lines: string[] }[] = [
  { name: "splits at \\n", chunks: ["a\nb\n"], lines: ["a", "b"] },
  { name: "drops the \\r of \\r\\n", chunks: ["a\r\nb\r\n"], lines: ["a", "b"] },
  { name: "keeps a lone \\r", chunks: ["a\rb\n"], lines: ["a\rb"] },
  { name: "joins \\r\\n split across chunks", chunks: ["a\r", "\nb\n"], lines: ["a", "b"] },
  { name: "yields a last line without \\n", chunks: ["a\nb"], lines: ["a", "b"] },
  { name: "yields empty lines", chunks: ["\n\r\n\n"], lines: ["", "", ""] },
  { name: "yields nothing for no input", chunks: [], lines: [] },
  { name: "yields nothing for empty chunks", chunks: ["", ""], lines: [] },
  {
    name: "joins a line spread over many chunks",
    chunks: ["{", '"a"', ":", "1}\n"],
    lines: ['{"a":1}'],
  },
  {
    name: "decodes a two-byte character split across chunks",
    chunks: [[0x22, 0xc3], [0xa9, 0x22, 0x0a]],
    lines: ['"é"'],
  },
  {
    name: "decodes a four-byte character split over three chunks",
    chunks: [[0xf0, 0x9f], [0x98], [0x80, 0x0a]],
    lines: ["😀"],
  },
];

test("readMessageLines() reports a line that is not UTF-8, with the id it can tell", async () => {
  const bytes = (text: string) => Uint8Array.from(text, (c) => c.charCodeAt(0));
  const lines = await collect(chunksOf(
    bytes('{"id":7,"method":"m","x":"\xff"}\n'),
    bytes('{"id":"\xe9","method":"m"}\n'), // (an id that is not UTF-8 cannot be echoed)
    bytes('{"method":"n","x":"\xc3"}\r\n'),
    bytes("a\xff\nok\n"),
  ));
  assert.deepEqual(lines, [
    { kind: "invalid_utf8", bytes: 29, id: 7 },
    { kind: "invalid_utf8", bytes: 23 },
    { kind: "invalid_utf8", bytes: 23, notification: true },
    { kind: "invalid_utf8", bytes: 2 },
    "ok",
  ]);
});

for (const { name, chunks, lines } of cases) {
  test(`readMessageLines() ${name}`, async () => {
    assert.deepEqual(await collect(chunksOf(...chunks)), lines);
  });
}

test("readMessageLines() reports a line over the cap and resyncs at the next newline", async () => {
  const lines = await collect(chunksOf("x".repeat(6), "x".repeat(6) + "\nok\n"), 10);
  assert.deepEqual(lines, [{ kind: "oversized", bytes: 12 }, "ok"]);
});

test("readMessageLines() accepts a line exactly at the cap", async () => {
  assert.deepEqual(await collect(chunksOf("0123456789\n"), 10), ["0123456789"]);
});

test("readMessageLines() reports an oversized line inside one chunk", async () => {
  assert.deepEqual(await collect(chunksOf("a\n" + "y".repeat(20) + "\nb\n"), 10), [
    "a",
    { kind: "oversized", bytes: 20 },
    "b",
  ]);
});

test("readMessageLines() reports an oversized last line without newline", async () => {
  assert.deepEqual(await collect(chunksOf("z".repeat(8), "z".repeat(8)), 10), [
    { kind: "oversized", bytes: 16 },
  ]);
});

test("readMessageLines() reads a 5 MiB line in 64 KiB chunks under the default cap as oversized", async () => {
  const chunk = encoder.encode("q".repeat(64 * 1024));
  async function* big(): AsyncGenerator<Uint8Array> {
    for (let i = 0; i < 80; i++) yield chunk;
    yield encoder.encode("\n{}\n");
  }
  assert.deepEqual(await collect(big()), [{ kind: "oversized", bytes: 80 * 64 * 1024 }, "{}"]);
});

test("readMessageLines() keeps its own copy of a pending chunk the source reuses", async () => {
  const buffer = new Uint8Array(3);
  async function* reusing(): AsyncGenerator<Uint8Array> {
    buffer.set(encoder.encode("abc"));
    yield buffer;
    buffer.set(encoder.encode("d\ne"));
    yield buffer;
  }
  assert.deepEqual(await collect(reusing()), ["abcd", "e"]);
});

test("readMessageLines() refuses a cap that is not a positive number", async () => {
  await assert.rejects(() => collect(chunksOf("a\n"), 0), TypeError);
});

test("readMessageLines() gives an oversized line's top-level id, wherever it stands", async () => {
  const big = "x".repeat(100);
  const m = `"method":"m"`;
  // (Each id as the answer's JSON writes it: as sent; "n" for a notification, not answered.)
  const cases: Array<[string, string | undefined]> = [
    [`{"jsonrpc":"2.0","id":7,${m},"params":{"t":"${big}"}}`, "7"],
    // (The MCP SDKs write the id last, after the params.)
    [`{${m},"params":{"t":"${big}"},"jsonrpc":"2.0","id":"w-1"}`, '"w-1"'],
    [`{ "id" : -12.5e1 , ${m}, "params": ["${big}"] }`, "-12.5e1"],
    [`{${m},"params":["${big}"],"id":9007199254740993}`, "9007199254740993"],
    [`{${m},"params":["${big}"],"id":1.0}`, "1.0"],
    [`{${m},"params":{"id":5,"t":"${big}"},"id":"outer"}`, '"outer"'],
    [`{${m},"params":{"t":"\\"id\\":3 ${big}"},"id":"a\\"b\\\\"}`, '"a\\"b\\\\"'],
    [`{${m},"params":["${big}"],"id":"é😀"}`, '"é😀"'],
    [`{${m},"params":["${big}"],"id":9}`, "9"],
    [`{"id":1,${m},"params":["${big}"],"id":2}`, "2"], // (the last, as JSON.parse takes it)
    [`{"\\u0069d":8,"\\u006dethod":"m","params":["${big}"]}`, "8"], // (keys as JSON reads them)
    [`{${m},"id":1,"params":["${big}"],"id":{"x":1}}`, undefined], // (the last is no id)
    [`{${m},"id":1,"params":["${big}"],"id":"${"y".repeat(2000)}"}`, undefined],
    [`{${m},"params":["${big}"],"id":null}`, undefined],
    [`{${m},"params":["${big}"],"id":{"x":1}}`, undefined],
    [`{${m},"params":["${big}"],"ids":1,"xid":2}`, "n"],
    // (A response is no request: answering it would answer the server's own request.)
    [`{"jsonrpc":"2.0","result":{"roots":["${big}"]},"id":"linewise-1"}`, undefined],
    [`[{"id":1,${m},"params":["${big}"]}]`, undefined],
    [`{${m},"params":["${big}"`, undefined],
    [`not json at all ${big}`, undefined],
  ];
  for (const [line, id] of cases) {
    // (In chunks of 7 bytes: the id is found across chunk boundaries.)
    const bytes = encoder.encode(line + "\n");
    const chunks = [];
    for (let i = 0; i < bytes.length; i += 7) chunks.push(bytes.slice(i, i + 7));
    const [got] = await collect(chunksOf(...chunks), 50);
    const size = bytes.length - 1;
    const expected = id === undefined
      ? `{"kind":"oversized","bytes":${size}}`
      : id === "n"
      ? `{"kind":"oversized","bytes":${size},"notification":true}`
      : `{"kind":"oversized","bytes":${size},"id":${id}}`;
    assert.equal(JSON.stringify(got), expected, line.slice(0, 60));
  }
});
