// `linewise grep` searches standard input as it comes and prints its rows run by run. Whatever
// the reads it comes in (cut anywhere, inside a line or a character), and whatever the flags,
// the output must be what the same input read whole gives.
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { test } from "node:test";
import fc from "fast-check";
import { grepCommand } from "../../src/cli/grep_command.ts";
import { requestOf } from "../_helpers/grep_request.ts";
import {
  type Chunk,
  descriptorNamed,
  runsOf,
  StdinError,
  type StdinSource,
} from "../../src/cli/_stdin.ts";
import { MemoryStore } from "../../src/store/memory_store.ts";
import { StreamedRows } from "../../src/cli/_streamed_rows.ts";

/**
 * Standard input of `bytes`, read in the pieces `cuts` makes; `whole` reads it whole, as
 * binary input is read.
 */
function stdinOf(bytes: Uint8Array, cuts: number[], whole: boolean): Pick<StdinSource, "open"> {
  const ends = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
  const pieces: Uint8Array[] = [];
  let from = 0;
  for (const end of [...ends, bytes.length]) {
    if (end > from) pieces.push(bytes.subarray(from, end));
    from = Math.max(from, end);
  }
  const first = pieces.shift() ?? new Uint8Array(0);
  return {
    open: () =>
      Promise.resolve({
        binary: whole,
        runs: () => runsOf(first, () => Promise.resolve(pieces.shift())),
        whole: () => Promise.resolve(bytes),
      }),
  };
}

async function grep(words: string[], stdin: Pick<StdinSource, "open">) {
  let stdout = "";
  const out = { stdout: (text: string) => void (stdout += text), stderr: () => {}, stdin };
  const status = await grepCommand(
    new MemoryStore({}),
    requestOf([...words, "-"], { stdin: { searchable: true } }),
    out,
  );
  return { stdout, status };
}

/**
 * A grep of `words` over standard input that sends `first`, then each of `reads` when asked
 * for more (a string starting "cannot" fails the read); what was printed when each read was
 * asked for, and what the grep printed and returned.
 */
async function piecemeal(words: string[], first: string, reads: string[]) {
  const encoder = new TextEncoder();
  let stdout = "";
  let stderr = "";
  const printedAtRead: string[] = [];
  const stdin: Pick<StdinSource, "open"> = {
    open: () =>
      Promise.resolve({
        binary: false,
        runs: () =>
          runsOf(encoder.encode(first), (): Promise<Chunk> => {
            printedAtRead.push(stdout);
            const read = reads.shift();
            return Promise.resolve(
              read?.startsWith("cannot") ? read : read && encoder.encode(read),
            );
          }),
        whole: () => Promise.reject(new Error("not read whole")),
      }),
  };
  const out = {
    stdout: (text: string) => void (stdout += text),
    stderr: (text: string) => void (stderr += text),
    stdin,
  };
  const status = await grepCommand(
    new MemoryStore({}),
    requestOf([...words, "-"], { stdin: { searchable: true } }),
    out,
  );
  return { printedAtRead, stdout, stderr, status };
}

const FLAGS = [
  [],
  ["-A", "1"],
  ["-B", "2"],
  ["-C", "1"],
  ["-B", "3", "-A", "1"],
  ["-A", "2", "-B", "1"],
  ["-m", "1"],
  ["-m", "2", "-A", "1"],
  ["-m", "1", "-B", "2"],
  ["-m", "2", "-C", "2"],
  ["-v"],
  ["-v", "-C", "1"],
  ["-o"],
  ["--column"],
  ["--vimgrep"],
  ["-c"],
  ["-o", "-c"],
  ["-c", "-m", "2"],
  ["-l"],
  ["-q"],
  ["--files-without-match"],
  ["-H", "--heading"],
  ["-H", "-C", "1", "--heading"],
  ["-N"],
  ["-x"],
  ["--max-lines", "3"],
];

const LINES = ["foo", "bar", "", "foo bar foo", "é foo", "\ufefffoo", "x\r", "\r", "ba\xffr"];

test("grep of standard input as it comes prints what it prints of the input read whole", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.constantFrom(...LINES), { maxLength: 30 }),
      fc.constantFrom("\n", "\r\n"),
      fc.boolean(),
      fc.array(fc.nat(), { maxLength: 8 }),
      fc.constantFrom(...FLAGS),
      async (lines, ending, last, cuts, flags) => {
        const text = lines.join(ending) + (last && lines.length > 0 ? ending : "");
        // (ba\xffr: a byte that is no UTF-8.)
        const bytes = Buffer.from(text.replaceAll("\xff", "\u0100"), "utf8");
        const bad = bytes.indexOf(Buffer.from("\u0100", "utf8"));
        if (bad !== -1) bytes[bad] = 0xff;
        const words = [...flags, "foo"];
        const whole = await grep(words, stdinOf(bytes, [], true));
        const streamed = await grep(words, stdinOf(bytes, cuts, false));
        assert.deepEqual(streamed, whole, `${JSON.stringify(text)} cut at ${cuts}`);
      },
    ),
    { numRuns: 400 },
  );
});

test("grep prints standard input's rows before the rest of it comes", async () => {
  // (Off a terminal: what is printed is held for a full buffer, but for a read to wait on.)
  const run = await piecemeal(["foo"], "a foo\n", ["b foo\nc\n", "d foo\n"]);
  assert.equal(run.status, 0);
  assert.deepEqual(run.printedAtRead, [
    "1:a foo\n",
    "1:a foo\n2:b foo\n",
    "1:a foo\n2:b foo\n4:d foo\n",
  ]);
});

test("a read of standard input that fails is said, after what was printed, with status 2", async () => {
  const run = await piecemeal(["foo"], "a foo\n", ["cannot read standard input: EIO"]);
  assert.deepEqual([run.status, run.stdout, run.stderr], [
    2,
    "1:a foo\n",
    "linewise: cannot read standard input: EIO\n",
  ]);
});

test("runsOf() refuses a line longer than it holds, and gives a run for each line's end", async () => {
  const piece = new Uint8Array(64 * 1024 * 1024).fill(97);
  let reads = 0;
  const runs = runsOf(piece, () => Promise.resolve(++reads <= 5 ? piece : undefined));
  await assert.rejects(
    async () => {
      for await (const _ of runs) assert.fail("no line ended");
    },
    (error) =>
      error instanceof StdinError &&
      error.message ===
        "a line of standard input is over 256 MiB: save it to a file and search that",
  );
  assert.equal(reads, 4, "it stopped reading at the line's 257th MiB");
});

test("StreamedRows takes a file's rows given all at once, a million of them", () => {
  // (The last a context row: within -B of lines to come.)
  const rows = Array.from({ length: 1_000_000 }, (_, i) => ({
    line: i + 1,
    text: "x\n",
    match: i < 999_999 ? { start: 0, end: 1 } : undefined,
  }));
  const streamed = new StreamedRows({ before: 1, after: 0, maxCount: undefined });
  assert.equal(
    streamed.take(rows, 1_000_000).length,
    999_999,
    "the last within -B of lines to come",
  );
  assert.equal(streamed.end([]).length, 0, "no match came within -B after it");
  assert.equal(new StreamedRows({ before: 0, after: 0, maxCount: 3 }).end(rows).length, 3);
});

test("grep of standard input shows a match with -B before more comes, and -m, -l and -q end without more", async () => {
  for (
    const [flags, expected] of [
      [["-B", "1"], "1:a foo\n"],
      [["-C", "2"], "1:a foo\n2-b\n"],
      [["-m", "1"], "1:a foo\n"],
      [["-m", "1", "-A", "1"], "1:a foo\n2-b\n"],
      [["-l"], "<stdin>\n"],
      [["-q"], ""],
    ] as const
  ) {
    const run = await piecemeal([...flags, "foo"], "a foo\nb\n", ["c foo\n"]);
    assert.equal(run.status, 0);
    const ends = flags[0] === "-B" || flags[0] === "-C";
    // (-B and -C read on, to the end; the others end before a second read.)
    assert.deepEqual(run.printedAtRead.slice(0, 1), ends ? [expected] : [], flags.join(" "));
    if (!ends) assert.equal(run.stdout, expected, flags.join(" "));
  }
  // --max-lines: the row past the budget ends the search when it comes, not at the next read.
  const run = await piecemeal(["--max-lines", "1", "foo"], "a foo\n", ["b foo\n", "c foo\n"]);
  assert.deepEqual([run.stdout, run.printedAtRead.length], ["1:a foo\n", 1]);
});

test("pipes named on the line (<(cmd)) are read as standard input is, each under its name", async () => {
  const encoder = new TextEncoder();
  const pipes: Record<string, Pick<StdinSource, "open">> = {
    "/dev/fd/63": stdinOf(encoder.encode("a foo\nb\n"), [3], false),
    "/dev/fd/62": stdinOf(encoder.encode("c\nfoo d\n"), [], false),
    "/dev/fd/61": stdinOf(encoder.encode("x\0foo\n"), [], true),
  };
  const run = async (words: string[]) => {
    let stdout = "";
    let stderr = "";
    const status = await grepCommand(new MemoryStore({ "f.txt": "foo e\n" }), requestOf(words), {
      stdout: (text) => void (stdout += text),
      stderr: (text) => void (stderr += text),
      pipe: (path) => pipes[path],
    });
    return { status, stdout, stderr };
  };
  assert.deepEqual(await run(["foo", "/dev/fd/63", "f.txt", "/dev/fd/62", "/dev/fd/61"]), {
    status: 0,
    stdout: "/dev/fd/63:1:a foo\nf.txt:1:foo e\n/dev/fd/62:2:foo d\n" +
      '/dev/fd/61: binary file matches (found "\\0" byte around offset 1)\n',
    stderr: "",
  });
  // (Alone, as a file named alone: its rows without its name.)
  assert.deepEqual(await run(["-c", "foo", "/dev/fd/62"]), {
    status: 0,
    stdout: "1\n",
    stderr: "",
  });
  // (One that cannot be read is said, and nothing is searched.)
  pipes["/dev/fd/60"] = { open: () => Promise.resolve({ error: "cannot read /dev/fd/60: EIO" }) };
  assert.deepEqual(await run(["foo", "f.txt", "/dev/fd/60"]), {
    status: 2,
    stdout: "",
    stderr: "linewise: cannot read /dev/fd/60: EIO\n",
  });
});

test("runsOf() names the input whose line is too long", async () => {
  const piece = new Uint8Array(129 * 1024 * 1024).fill(97);
  const runs = runsOf(piece, () => Promise.resolve(piece), "/dev/fd/63");
  await assert.rejects(
    async () => {
      for await (const _ of runs) assert.fail("no line ended");
    },
    (error) =>
      error instanceof StdinError &&
      error.message === "a line of /dev/fd/63 is over 256 MiB: save it to a file and search that",
  );
});

test("a path names a descriptor to read as /dev/fd/N or /proc/self/fd/N, past the standard three", () => {
  assert.equal(descriptorNamed("/dev/fd/63"), 63);
  assert.equal(descriptorNamed("/proc/self/fd/3"), 3);
  // (0 is standard input, - by its other names; 1 and 2 are the output, never read.)
  for (
    const path of [
      "/dev/fd/0",
      "/dev/fd/1",
      "/proc/self/fd/2",
      "/dev/fd/07",
      "dev/fd/63",
      "/dev/fd/x",
    ]
  ) {
    assert.equal(descriptorNamed(path), undefined, path);
  }
});
