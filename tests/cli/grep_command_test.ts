// What `linewise grep` asks of the store for its flags: the limits and callbacks that keep a
// search from holding every match (they change no output, so the output tests cannot tell).
import assert from "node:assert/strict";
import { test } from "node:test";
import { grepCommand, OUTPUT_BUFFER_CHARS } from "../../src/cli/grep_command.ts";
import { PRINTED_CHARS } from "../../src/cli/_grep_print.ts";
import { requestOf } from "../_helpers/grep_request.ts";
import type { SearchQuery, SearchResult } from "../../src/store/file_store.ts";
import { MemoryStore } from "../../src/store/memory_store.ts";
import { notice, noticesTo } from "../../src/io/runtime.ts";

/** A store that keeps the queries it was asked, and tells when each search ends. */
class RecordingStore extends MemoryStore {
  readonly queries: SearchQuery[] = [];
  searched = () => {};

  override async search(query: SearchQuery): Promise<SearchResult> {
    this.queries.push(query);
    const result = await super.search(query);
    this.searched();
    return result;
  }
}

/** Runs grep with the words of a command line over a few files; its one query and output. */
async function grep(...words: string[]) {
  const store = new RecordingStore({
    "a.txt": "foo\nfoo\n",
    "b.txt": "bar\n",
    "d/c.md": "foo\n",
    "d/e/f.txt": "foo\n",
  });
  let stdout = "";
  let printedWhileSearching = "";
  store.searched = () => void (printedWhileSearching = stdout);
  const out = { stdout: (text: string) => void (stdout += text), stderr: () => {} };
  await grepCommand(store, requestOf(words), out);
  assert.equal(store.queries.length, 1);
  return { query: store.queries[0], stdout, printedWhileSearching };
}

test("grep -l, -q and --files-without-match take each file's first match alone", async () => {
  for (const flag of ["-l", "-q", "--files-without-match"]) {
    assert.equal((await grep(flag, "foo")).query.maxMatchesPerFile, 1, flag);
  }
  // (-c outweighs -l and counts every line; --max-matches counts every line too.)
  assert.equal((await grep("-c", "-l", "foo")).query.maxMatchesPerFile, undefined);
  assert.equal((await grep("-l", "--max-matches", "5", "foo")).query.maxMatchesPerFile, undefined);
  assert.equal((await grep("-m", "2", "foo")).query.maxMatchesPerFile, 2);
});

test("grep -c counts lines without rows; -o -c and --count-matches count matches in them", async () => {
  const counted = await grep("-c", "-A", "2", "foo");
  assert.deepEqual([counted.query.countOnly, counted.query.context], [true, 0]);
  assert.equal(counted.stdout, "a.txt:2\nd/c.md:1\nd/e/f.txt:1\n");
  assert.equal((await grep("-o", "-c", "foo")).query.countOnly, undefined);
  assert.equal((await grep("--count-matches", "foo")).query.countOnly, undefined);
});

test("grep prints files as the search hands them over, its filters kept by the walk", async () => {
  // (Line-buffered, as on a terminal: off one, what is printed waits for a full buffer.)
  const lined = (...words: string[]) => grep("--line-buffered", ...words);
  const streamed = await lined("foo");
  assert.equal(streamed.stdout, "a.txt:1:foo\na.txt:2:foo\nd/c.md:1:foo\nd/e/f.txt:1:foo\n");
  assert.equal(streamed.printedWhileSearching, streamed.stdout);
  // (--max-depth, -t beside -g and --max-filesize are the walk's: printed as found too.)
  const walked = await lined("-g", "!b.txt", "-t", "txt", "--max-depth", "2", "foo");
  assert.deepEqual(
    [walked.query.maxDepth, walked.query.onlyTypes?.includes("*.txt")],
    [2, true],
  );
  assert.equal(walked.stdout, "a.txt:1:foo\na.txt:2:foo\n");
  assert.equal(walked.printedWhileSearching, walked.stdout);
  const sized = await lined("--max-filesize", "4", "foo");
  assert.equal(sized.query.maxFileSize, 4);
  assert.equal(sized.stdout, "d/c.md:1:foo\nd/e/f.txt:1:foo\n");
  assert.equal(sized.printedWhileSearching, sized.stdout);
  // (-q stops at the first match whatever the filters.)
  assert.equal((await lined("-q", "--max-filesize", "4", "foo")).query.maxMatches, 1);
  const without = await lined("--files-without-match", "foo");
  assert.deepEqual([without.stdout, without.printedWhileSearching], ["b.txt\n", "b.txt\n"]);
  assert.equal((await lined("foo")).query.onNoMatch, undefined);
});

test("off a terminal grep gathers what it prints into writes of 8 KiB, and flushes before stderr", async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 2_000; i++) files[`f/${String(i).padStart(4, "0")}.txt`] = "foo\n";
  /** The writes of a grep over the files, stdout's and stderr's in the order made. */
  const writes = async (words: string[], stdoutIsTerminal: boolean) => {
    const made: Array<[string, string]> = [];
    const out = {
      stdout: (text: string) => void made.push(["out", text]),
      stderr: (text: string) => void made.push(["err", text]),
    };
    const request = requestOf(["--color", "never", ...words], { stdoutIsTerminal });
    const status = await grepCommand(new MemoryStore(files), request, out);
    return { status, made, printed: made.filter(([to]) => to === "out").map(([, t]) => t) };
  };
  const each = await writes(["--no-heading", "foo"], true);
  assert.equal(each.printed.length, 2_000, "on a terminal, each file as it is searched");
  const rows = each.printed.join("");
  for (const words of [["foo"], ["--line-buffered", "--block-buffered", "foo"]]) {
    const gathered = await writes(["--no-heading", ...words], words.includes("--block-buffered"));
    assert.equal(gathered.printed.join(""), rows, words.join(" "));
    assert.ok(gathered.printed.length <= Math.floor(rows.length / OUTPUT_BUFFER_CHARS) + 1);
    assert.ok(gathered.printed.slice(0, -1).every((text) => text.length >= OUTPUT_BUFFER_CHARS));
  }
  // (--line-buffered off a terminal, the last of the two given, writes each file at once.)
  const lined = await writes(["--block-buffered", "--line-buffered", "foo"], false);
  assert.equal(lined.printed.length, 2_000);
  // What is said on stderr comes after what was printed before it.
  const missing = await writes(["foo", "f/0000.txt", "nowhere", "f/0001.txt"], false);
  assert.equal(missing.status, 2);
  assert.deepEqual(missing.made.map(([to]) => to), ["out", "err", "out"]);
  assert.equal(missing.made[0][1], "f/0000.txt:1:foo\n");
  assert.match(missing.made[1][1], /nowhere/);
  // (--files lists alike.)
  const listed = await writes(["--files"], false);
  assert.equal(listed.printed.join("").split("\n").length, 2_001);
  assert.ok(
    listed.printed.length <= Math.floor(listed.printed.join("").length / OUTPUT_BUFFER_CHARS) + 1,
  );
});

test("a file of many rows is handed on in pieces, not held whole, and reads the same", async () => {
  // (Every third line matches: with -A 1, groups apart are separated by --, across pieces too.)
  const lines = Array.from({ length: 60_000 }, (_, i) => i % 3 === 0 ? `foo ${i}` : `bar ${i}`);
  const store = new MemoryStore({ "big.txt": lines.join("\n") + "\n" });
  for (const words of [["foo", "big.txt"], ["-A", "1", "foo", "big.txt"]]) {
    const pieces: string[] = [];
    const out = { stdout: (text: string) => void pieces.push(text), stderr: () => {} };
    // (On a terminal each text is written as it comes.)
    const request = requestOf(["--color", "never", ...words], { stdoutIsTerminal: true });
    assert.equal(await grepCommand(store, request, out), 0);
    const expected = lines.flatMap((line, i) => {
      const row = `${i + 1}:${line}\n`;
      if (words[0] !== "-A") return i % 3 === 0 ? [row] : [];
      if (i % 3 === 0) return [row];
      return i % 3 === 1 ? [`${i + 1}-${line}\n`] : i + 1 < lines.length ? ["--\n"] : [];
    }).join("");
    assert.equal(pieces.join(""), expected, words.join(" "));
    assert.ok(
      pieces.length >= Math.floor(expected.length / PRINTED_CHARS),
      `${pieces.length} pieces`,
    );
    assert.ok(pieces.every((piece) => piece.length < PRINTED_CHARS + 100), words.join(" "));
  }
});

test("the engine's notices during a grep come after the rows printed before them", async () => {
  /** A store that says a notice once the first file's rows are handed over. */
  class NoticingStore extends MemoryStore {
    override search(query: SearchQuery): Promise<SearchResult> {
      const onFile = query.onFile;
      let handed = 0;
      return super.search({
        ...query,
        onFile: onFile && ((file) => {
          onFile(file);
          if (++handed === 1) notice("the search worker failed (on purpose); working without it");
        }),
      });
    }
  }
  const made: Array<[string, string]> = [];
  const out = {
    stdout: (text: string) => void made.push(["out", text]),
    stderr: (text: string) => void made.push(["err", text]),
  };
  const store = new NoticingStore({ "a.txt": "foo\n", "b.txt": "foo\n" });
  const request = requestOf(["--color", "never", "foo"], { stdoutIsTerminal: false });
  assert.equal(await grepCommand(store, request, out), 0);
  assert.deepEqual(made, [
    ["out", "a.txt:1:foo\n"],
    ["err", "linewise: the search worker failed (on purpose); working without it\n"],
    ["out", "b.txt:1:foo\n"],
  ]);
  // (Once the grep is over, notices go to stderr again; routes taken away out of order leave
  // the one still set in force.)
  const [first, second]: string[][] = [[], []];
  const firstGone = noticesTo((line) => first.push(line));
  const secondGone = noticesTo((line) => second.push(line));
  firstGone();
  notice("after");
  secondGone();
  assert.deepEqual([first, second, made.length], [[], ["linewise: after"], 3]);
});

test("--vimgrep prints no colour on a terminal unless --color always asks, as ripgrep", async () => {
  const printed = async (words: string[]) => {
    let stdout = "";
    const out = { stdout: (text: string) => void (stdout += text), stderr: () => {} };
    const request = requestOf(words, { stdoutIsTerminal: true });
    await grepCommand(new MemoryStore({ "a.txt": "a foo\n" }), request, out);
    return stdout;
  };
  assert.equal(await printed(["--vimgrep", "foo"]), "a.txt:1:3:a foo\n");
  assert.ok((await printed(["--vimgrep", "--color", "always", "foo"])).includes("\x1b["));
  assert.ok((await printed(["foo"])).includes("\x1b["), "other output is coloured on a terminal");
});

test("a short option's value may follow an =, as ripgrep reads it", async () => {
  assert.equal((await grep("-m=2", "foo")).query.maxMatchesPerFile, 2);
  assert.equal((await grep("-e=fo+", "-c")).stdout, "a.txt:2\nd/c.md:1\nd/e/f.txt:1\n");
  // (An = in a word that is no option's is the word's own.)
  assert.equal((await grep("--", "-m=2")).stdout, "");
});

test("grep --column counts bytes of the line as printed, U+FFFD for each byte that is not UTF-8", async () => {
  const store = new MemoryStore({
    "bad.txt": new Uint8Array([0x61, 0xff, 0x62, 0x20, 0x66, 0x6f, 0x6f, 0x0a]),
  });
  let stdout = "";
  const out = { stdout: (text: string) => void (stdout += text), stderr: () => {} };
  await grepCommand(store, requestOf(["--column", "foo"]), out);
  // ("a\uFFFDb " is 1 + 3 + 1 + 1 bytes: foo starts at byte 7 of what is printed.)
  assert.equal(stdout, "bad.txt:1:7:a\uFFFDb foo\n");
  assert.equal(Buffer.from(stdout.split(":").slice(3).join(":")).indexOf("foo") + 1, 7);
});
