// The command line, through the compiled binary: subcommands, --json, exit codes 0/1/2.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { main } from "../../src/cli/main.ts";
import { spawnSync } from "node:child_process";
import process from "node:process";
import { Buffer } from "node:buffer";
import { cliEnv, ensureBinary, runCli, tempRoot } from "../_helpers/binary.ts";
import { opensWhile } from "../_helpers/opens.ts";
import denoJson from "../../deno.json" with { type: "json" };
import { VERSION } from "../../src/version.ts";
import { versionOf } from "../../src/versions/mod.ts";

/** The note a read starts with: the version of a.txt, which edits from the CLI may pass. */
const A_VERSION = `[version ${versionOf("one\r\ntwo\r\nthree\r\nfour\r\n")}]\n`;

describe("the linewise command line", () => {
  const root = tempRoot();
  before(() => {
    writeFileSync(join(root.dir, "a.txt"), "one\r\ntwo\r\nthree\r\nfour\r\n");
    mkdirSync(join(root.dir, "src"));
    writeFileSync(join(root.dir, "src", "b.ts"), "const Two = 2;\nconst three = 3;\n");
  });
  after(() => root.remove());

  test("--version prints the version in deno.json", () => {
    const out = runCli(["--version"], root.dir);
    assert.equal(out.status, 0);
    // (and the runtime: the tests run the compiled binary)
    assert.match(
      out.stdout,
      new RegExp(`^linewise ${denoJson.version} \\(bun [\\d.]+, compiled\\)\n$`),
    );
    assert.equal(VERSION, denoJson.version);
  });

  for (
    const [name, args] of [
      ["an empty --root", ["serve", "--root", ""]],
      ["a --root that does not exist", ["read", "a.txt", "--root", join(root.dir, "nope")]],
      ["a serve directory that does not exist", ["serve", join(root.dir, "nope")]],
    ] as const
  ) {
    test(`${name} is a usage error: one sentence, exit 2`, () => {
      const out = runCli([...args], root.dir);
      assert.equal(out.status, 2);
      const lines = out.stderr.trimEnd().split("\n");
      assert.deepEqual(lines.length, 2, out.stderr);
      assert.match(lines[0], /^linewise: --root or --deny cannot be used: /);
      assert.doesNotMatch(lines[0], /glob or list/, "the tools' advice is not for an option");
      assert.equal(lines[1], "Try 'linewise --help'.");
    });
  }

  test("grep's note says only context was cut when every match is shown", () => {
    writeFileSync(join(root.dir, "ctx.txt"), "a\nb\nneedle\nc\nd\n");
    const args = JSON.stringify({ pattern: "needle", path: "ctx.txt", context: 2 });
    const out = runCli(["call", "grep", args, "--max-lines", "3"], root.dir);
    rmSync(join(root.dir, "ctx.txt"));
    assert.equal(out.status, 0);
    assert.match(out.stdout, /\[output budget reached: showing all 1 matching line in 1 file, but/);
    assert.doesNotMatch(out.stdout, /more matches exist/);
  });

  test("grep --json refuses ripgrep's own flags instead of dropping them", () => {
    const json = runCli(["grep", "two", "--json", "-i"], root.dir);
    assert.equal(json.status, 0, json.stderr);
    assert.equal(JSON.parse(json.stdout).matched_lines, 2);
    // (One path, as the tool takes it: several are the command line's own.)
    const paths = runCli(["grep", "two", "--json", "a.txt", "b.txt"], root.dir);
    assert.equal(paths.status, 2);
    assert.match(
      paths.stderr,
      /^linewise: grep --json takes PATTERN \[PATH\]: one path, as the grep tool/,
    );
    const out = runCli(["grep", "two", "--json", "-w", "-g", "*.ts", "-g", "*.md"], root.dir);
    assert.equal(out.status, 2);
    assert.match(
      out.stderr,
      /grep --json gives the grep tool's result, which takes no -w, -g more than once/,
    );
    const more = runCli(
      ["grep", "two", "--json", "-o", "-q", "-m", "1", "-S", "-u", "-N"],
      root.dir,
    );
    assert.equal(more.status, 2);
    assert.match(more.stderr, /which takes no -o, -q, -m, -S, -u, -N$/m);
    for (const [flag, value] of [["-e", "two"], ["-f", "a.txt"]]) {
      const listed = runCli(["grep", "--files", flag, value], root.dir);
      assert.equal(listed.status, 2);
      assert.equal(listed.stdout, "");
      assert.match(
        listed.stderr,
        new RegExp(
          `^linewise: --files lists the files a search would look through and takes no pattern: drop ${flag}, or --files`,
        ),
      );
    }
    const uuu = runCli(["grep", "-uuu", "two"], root.dir);
    assert.equal(uuu.status, 2);
    assert.match(uuu.stderr, /^linewise: grep takes -u and -uu, not -uuu/);
    const newer = runCli(
      ["grep", "two", "--json", "-x", "-T", "md", "--max-depth", "1", "--count-matches"],
      root.dir,
    );
    assert.equal(newer.status, 2);
    assert.match(newer.stderr, /which takes no -x, --count-matches, -T, --max-depth$/m);
    const sized = runCli(["grep", "two", "--json", "--max-filesize", "1K", "-v"], root.dir);
    assert.match(sized.stderr, /which takes no -v, --max-filesize$/m);
  });

  test("grep refuses a --sort it does not keep, a pattern file it cannot read, a bad size", () => {
    const sorted = runCli(["grep", "--sort", "modified", "two"], root.dir);
    assert.equal(sorted.status, 2);
    assert.match(sorted.stderr, /^linewise: --sort takes path or none, got "modified": linewise/);
    const none = runCli(["grep", "--sort", "none", "-P", "tw(?=o)"], root.dir);
    assert.equal(none.status, 0, none.stderr);
    const missing = runCli(["grep", "-f", "no-such-patterns.txt", "."], root.dir);
    assert.equal(missing.status, 2);
    assert.match(missing.stderr, /^linewise: -f no-such-patterns\.txt: no such file/);
    const depth = runCli(["grep", "--max-depth", "-1", "two"], root.dir);
    assert.equal(depth.status, 2);
    assert.match(depth.stderr, /^linewise: --max-depth takes a whole number of 0 or more/);
    writeFileSync(join(root.dir, "latin1.txt"), Buffer.from([0x66, 0xff, 0x0a]));
    const latin1 = runCli(["grep", "-f", "latin1.txt", "."], root.dir);
    rmSync(join(root.dir, "latin1.txt"));
    assert.equal(latin1.status, 2);
    assert.match(latin1.stderr, /^linewise: -f latin1\.txt: its bytes are not UTF-8/);
    const folder = runCli(["grep", "-f", ".", "."], root.dir);
    assert.match(folder.stderr, /^linewise: -f \.: a directory, not a file/);
    const size = runCli(["grep", "--max-filesize", "1.5M", "two"], root.dir);
    assert.equal(size.status, 2);
    assert.match(size.stderr, /^linewise: --max-filesize takes digits and K, M or G if any/);
  });

  test("grep -v of a pattern that may run without end still stops at --timeout", {
    timeout: 30_000,
  }, () => {
    // (A lookbehind before a run of stars never ends on a long run of a's: inverted, it still
    // runs where it can be stopped.)
    writeFileSync(join(root.dir, "run.txt"), "a".repeat(3000) + "\n");
    const out = runCli(["grep", "-v", "--timeout", "1", "(?<=a)a*a*a*a*b", "run.txt"], root.dir);
    rmSync(join(root.dir, "run.txt"));
    assert.equal(out.status, 2, out.stderr);
    assert.match(out.stderr, /stopped by the time budget/);
  });

  test("grep names the pattern at fault as typed, and the flags that help", () => {
    const out = runCli(["grep", "-x", "-e", "two", "-e", "fo(o"], root.dir);
    assert.equal(out.status, 2);
    assert.match(
      out.stderr,
      /^linewise: pattern "fo\(o" is not a valid regular expression \(.*\); fix it, or pass -F to/,
    );
    // (Also where the patterns joined would hold: each must hold alone, as typed.)
    for (const words of [["-w", "two)|(fo"], ["-e", "two(", "-e", ")fo"], ["-x", "t)|(f"]]) {
      const joined = runCli(["grep", ...words], root.dir);
      assert.equal(joined.status, 2, words.join(" "));
      assert.match(joined.stderr, /^linewise: pattern ".*" is not a valid regular expression/);
      assert.equal(joined.stdout, "", words.join(" "));
    }
    // (Also a character past U+10FFFF, which -S reads the literals of first.)
    const past = runCli(["grep", "-S", "\\x{110000}"], root.dir);
    assert.equal(past.status, 2);
    assert.match(past.stderr, /^linewise: pattern ".*" is not a valid regular expression/);
    const inline = runCli(["grep", "-w", "(?i)two"], root.dir);
    assert.match(
      inline.stderr,
      /\(\?i\) is ripgrep's syntax, not JavaScript's: leave it out, and pass -i$/m,
    );
  });

  test("grep --files-without-match looks into many files within a low file limit", () => {
    // (Once looked into again after the search, all at once: 20,000 files ran out of
    // descriptors, EMFILE, an internal error. The search now tells of them as it goes.)
    const dir = join(root.dir, "many");
    mkdirSync(dir);
    for (let i = 0; i < 600; i++) writeFileSync(join(dir, `f${i}.txt`), `line ${i}\n`);
    const out = spawnSync(
      "sh",
      [
        "-c",
        'ulimit -n 128 && exec "$0" "$@"',
        ensureBinary(),
        "grep",
        "--files-without-match",
        "zzz",
        "many",
      ],
      { cwd: root.dir, encoding: "utf8", env: cliEnv() },
    );
    rmSync(dir, { recursive: true });
    assert.equal(out.status, 0, out.stderr);
    assert.equal(out.stdout.split("\n").filter(Boolean).length, 600);
  });

  test("grep --no-messages leaves a path it cannot search unsaid, and its status tells", () => {
    const said = runCli(["grep", "two", "missing.txt", "."], root.dir);
    assert.equal(said.status, 2);
    assert.match(said.stderr, /^linewise: no file or directory at "missing\.txt"/);
    const quiet = runCli(["grep", "--no-messages", "two", "missing.txt", "."], root.dir);
    assert.equal(quiet.status, 2);
    assert.equal(quiet.stderr, "");
    assert.equal(quiet.stdout, said.stdout);
    assert.notEqual(quiet.stdout, "");
  });

  test("grep names a ripgrep option it does not take, and why for the common ones", () => {
    const multiline = runCli(["grep", "-U", "two"], root.dir);
    assert.equal(multiline.status, 2);
    assert.match(multiline.stderr, /^linewise: grep does not take -U: a match lies within a line/);
    // (An option's value before the command is not taken for the command.)
    const after = runCli(["--timeout", "5", "grep", "--text", "two"], root.dir);
    assert.match(after.stderr, /^linewise: grep does not take --text: binary files a walk meets/);
    const trim = runCli(["grep", "--trim", "two"], root.dir);
    assert.match(trim.stderr, /^linewise: grep does not take --trim \(linewise --help lists/);
    // (Another command's unknown option is named, with how to give a word starting with -.)
    const read = runCli(["read", "--trim", "a.txt"], root.dir);
    assert.equal(read.status, 2);
    assert.match(read.stderr, /^linewise: unknown option --trim \(.* as in -- --trim\)\n/);
  });

  test("grep -o and --count-matches say when they take a line's first match alone", () => {
    // (-w puts fo+ on the stoppable engine, run again only over lines of 4,096 characters.)
    writeFileSync(join(root.dir, "long.txt"), `foo ${"x".repeat(5000)} foo\nfoo foo\n`);
    const out = runCli(["grep", "-o", "-w", "fo+", "long.txt"], root.dir);
    const counted = runCli(["grep", "--count-matches", "-w", "fo+", "long.txt"], root.dir);
    rmSync(join(root.dir, "long.txt"));
    assert.equal(counted.stdout, "3\n");
    assert.match(counted.stderr, /^linewise: --count-matches counts the first match alone of/);
    assert.equal(out.status, 0, out.stderr);
    assert.equal(out.stdout, "1:foo\n2:foo\n2:foo\n");
    assert.match(out.stderr, /^linewise: -o shows the first match alone of lines this pattern/);
  });

  test("grep --vimgrep and --count-matches find each match on the linear engine", () => {
    // (A repeated group puts the pattern on the linear engine: each match is found there.)
    writeFileSync(join(root.dir, "calls.txt"), "a.b c.d\n");
    const out = runCli(["grep", "--vimgrep", "(?:\\w+\\.)+\\w+", "calls.txt"], root.dir);
    const counted = runCli(["grep", "--count-matches", "(?:\\w+\\.)+\\w+", "calls.txt"], root.dir);
    rmSync(join(root.dir, "calls.txt"));
    assert.deepEqual([out.stdout, out.stderr, out.status], [
      "calls.txt:1:1:a.b c.d\ncalls.txt:1:5:a.b c.d\n",
      "",
      0,
    ]);
    assert.deepEqual([counted.stdout, counted.stderr], ["2\n", ""]);
  });

  test("grep -w of a pattern only the linear engine runs says to write \\b instead", () => {
    writeFileSync(join(root.dir, "w.txt"), "getValue setValue x\nresetValue\n");
    const word = runCli(["grep", "-w", "(get|set)+Value", "w.txt"], root.dir);
    const bounded = runCli(["grep", "\\b(?:(get|set)+Value)\\b", "w.txt"], root.dir);
    rmSync(join(root.dir, "w.txt"));
    assert.equal(word.status, 2);
    assert.equal(
      word.stderr,
      "linewise: -w puts lookarounds around the pattern, and a pattern that runs on the linear-time engine (as this one must, for its repetition) cannot have them: write \\b on either side instead ('\\b(?:(get|set)+Value)\\b', ASCII word characters), or pass -F\n",
    );
    assert.deepEqual([bounded.stdout, bounded.status], ["1:getValue setValue x\n", 0]);
  });

  test("grep --max-lines and --max-chars cap what it prints, and say so", () => {
    const rows = Array.from({ length: 100 }, (_, i) => `row ${i + 1} ${"x".repeat(20)}\n`);
    writeFileSync(join(root.dir, "rows.txt"), rows.join(""));
    const grep = (...args: string[]) => runCli(["grep", ...args, "rows.txt"], root.dir);
    const two = grep("row", "--max-lines", "2");
    const counted = grep("-c", "row", "--max-lines", "1");
    const chars = grep("row", "--max-chars", "1000");
    const context = grep("-C1", "row 5 ", "--max-lines", "2");
    const fits = grep("row 1[0-9] ", "--max-lines", "10");
    const none = grep("nothing", "--max-lines", "1");
    rmSync(join(root.dir, "rows.txt"));
    assert.deepEqual([two.stdout, two.stderr, two.status], [
      `1:${rows[0]}2:${rows[1]}`,
      "linewise: stopped at --max-lines 2: more output exists\n",
      0,
    ]);
    assert.deepEqual([counted.stdout, counted.stderr], ["100\n", ""]);
    // (Whole lines, as many as fit in 1,000 characters.)
    const lines = chars.stdout.split("\n").length - 1;
    assert.ok(chars.stdout.length <= 1000 && chars.stdout.length + 32 > 1000, chars.stdout);
    assert.equal(chars.stdout, rows.slice(0, lines).map((row, i) => `${i + 1}:${row}`).join(""));
    assert.equal(chars.stderr, "linewise: stopped at --max-chars 1000: more output exists\n");
    assert.deepEqual([context.stdout, context.status], [`4-${rows[3]}5:${rows[4]}`, 0]);
    assert.deepEqual([fits.stdout.split("\n").length - 1, fits.stderr], [10, ""]);
    assert.deepEqual([none.stdout, none.stderr, none.status], ["", "", 1]);
  });

  test("a leading -- is passed over, as deno task start -- passes it on", () => {
    writeFileSync(join(root.dir, "dash.txt"), "x\nneedle\n");
    const out = runCli(["--", "grep", "needle", "dash.txt", "--max-matches", "1"], root.dir);
    rmSync(join(root.dir, "dash.txt"));
    assert.equal(out.status, 0, out.stderr);
    assert.equal(out.stdout, "2:needle\n", "one file named alone: no path, as ripgrep");
  });

  test("--help lists every tool, and call TOOL --help its arguments", () => {
    const help = runCli(["--help"], root.dir);
    assert.match(
      help.stdout,
      /Tools \(linewise call TOOL --help\): read, grep, glob, list, write, replace, replace_lines, insert_lines, patch, undo, move, delete\n$/,
    );
    const tool = runCli(["call", "replace_lines", "--help"], root.dir);
    assert.equal(tool.status, 0);
    assert.match(
      tool.stdout,
      /^linewise call replace_lines 'JSON-ARGS': Replaces or deletes ranges/,
    );
    assert.match(tool.stdout, /\n {2}edits \(array, required\): /);
    assert.equal(runCli(["call", "nope", "--help"], root.dir).status, 2);
  });

  test("a read past the end says it in the command line's words", () => {
    const out = runCli(["read", "a.txt", "30:31"], root.dir);
    assert.equal(out.status, 1);
    assert.match(
      out.stderr,
      /START 30 is past the end: the file has \d+ lines?; try: linewise read a\.txt 1:\d+\n$/,
    );
    assert.doesNotMatch(out.stderr, /start_line/);
  });

  test("--help prints usage and exits 0", () => {
    const out = runCli(["--help"], root.dir);
    assert.equal(out.status, 0);
    assert.match(out.stdout, /linewise read FILE \[START\[:END\]\]/);
  });

  const reads: Array<[string, string[], string]> = [
    ["START:END reads that range", ["read", "a.txt", "2:3"], A_VERSION + "2\ttwo\r\n3\tthree\r\n"],
    ["START alone reads to the end", ["read", "a.txt", "3"], A_VERSION + "3\tthree\r\n4\tfour\r\n"],
    [
      "no range reads the whole file",
      ["read", "a.txt"],
      A_VERSION + "1\tone\r\n2\ttwo\r\n3\tthree\r\n4\tfour\r\n",
    ],
  ];
  for (const [name, args, expected] of reads) {
    test(`read: ${name}`, () => {
      const out = runCli(args, root.dir);
      assert.equal(out.status, 0, out.stderr);
      assert.equal(out.stdout, expected);
    });
  }

  test("grep takes -i, -F, -C and --glob anywhere on the line", () => {
    const out = runCli(["grep", "-i", "two", "--glob", "*.ts", "-C", "1"], root.dir);
    assert.equal(out.status, 0, out.stderr);
    assert.equal(out.stdout, "src/b.ts:1:const Two = 2;\nsrc/b.ts-2-const three = 3;\n");
    const fixed = runCli(["grep", "-F", "t.o", "."], root.dir);
    assert.equal(fixed.stdout, "");
    assert.equal(fixed.stderr, "", "as ripgrep: nothing on stderr either");
    assert.equal(fixed.status, 1, "nothing matched: 1, as for grep and ripgrep");
    const bad = runCli(["grep", "("], root.dir);
    assert.equal(bad.status, 2, "a bad pattern is an error: 2");
    assert.match(bad.stderr, /^linewise: /);
    // (A glob that cannot be read was once an "internal error" with a stack.)
    const glob = runCli(["grep", "-g", "[", "two"], root.dir);
    assert.equal(glob.status, 2, "a bad glob is an error: 2");
    assert.equal(
      glob.stderr,
      `linewise: glob "[" is malformed: the "[" at character 1 is never closed; close it with "]", or write "[[]" for a literal "["\n`,
    );
  });

  test("glob and list print paths", () => {
    assert.equal(runCli(["glob", "*.ts"], root.dir).stdout, "src/b.ts\n");
    assert.match(runCli(["list"], root.dir).stdout, /^dir\t-\tsrc\/\nfile\t\d+\ta\.txt\n$/);
  });

  test("call runs any tool with JSON arguments, and --json prints the structured result", () => {
    const out = runCli([
      "call",
      "replace_lines",
      JSON.stringify({
        path: "a.txt",
        edits: [{ start_line: 2, new_text: "2", expected_text: "two" }],
      }),
      "--json",
    ], root.dir);
    assert.equal(out.status, 0, out.stderr);
    assert.equal(JSON.parse(out.stdout).line_delta, 0);
    assert.equal(readFileSync(join(root.dir, "a.txt"), "utf8"), "one\r\n2\r\nthree\r\nfour\r\n");
  });

  test("a numbered edit from the command line needs version, expected_text or --force", () => {
    const file = join(root.dir, "n.txt");
    writeFileSync(file, "one\ntwo\nthree\n");
    const edit = (extra: Record<string, unknown>, ...flags: string[]) =>
      runCli([
        "call",
        "replace_lines",
        JSON.stringify({ path: "n.txt", edits: [{ start_line: 2, new_text: "TWO" }], ...extra }),
        ...flags,
      ], root.dir);
    const unchecked = edit({});
    assert.equal(unchecked.status, 2, unchecked.stderr);
    assert.match(unchecked.stderr, /needs "version" \(read and grep print it.*or pass --force/);
    assert.equal(readFileSync(file, "utf8"), "one\ntwo\nthree\n");

    const read = runCli(["read", "n.txt"], root.dir);
    const version = /^\[version ([0-9a-f]{8})\]\n/.exec(read.stdout)![1];
    writeFileSync(file, "zero\none\ntwo\nthree\n"); // another process inserts a line on top
    const stale = edit({ version });
    assert.equal(stale.status, 1, "the CLI holds no old version to carry the edit over");
    assert.match(
      stale.stderr,
      /version \w+ is not the file.s version now.*\):\n1\tzero\n2\tone\n3\ttwo\n4\tthree\n\n$/s,
    );
    assert.equal(readFileSync(file, "utf8"), "zero\none\ntwo\nthree\n");

    const now = /^\[version ([0-9a-f]{8})\]/.exec(runCli(["read", "n.txt"], root.dir).stdout)![1];
    assert.equal(edit({ version: now }).status, 0);
    assert.equal(readFileSync(file, "utf8"), "zero\nTWO\ntwo\nthree\n");
    assert.equal(edit({ edits: [{ start_line: 3, new_text: "2" }] }, "--force").status, 0);
    assert.equal(readFileSync(file, "utf8"), "zero\nTWO\n2\nthree\n");
  });

  test("a tool error exits 1 with the message on stderr", () => {
    const out = runCli(["read", "a.txt", "9"], root.dir);
    assert.equal(out.status, 1);
    assert.equal(out.stdout, "");
    assert.match(out.stderr, /past the end: the file has 4 lines/);
  });

  const usage: Array<[string, string[]]> = [
    ["no command", []],
    ["an unknown command", ["frobnicate"]],
    ["an unknown option", ["read", "a.txt", "--bogus"]],
    ["a malformed range", ["read", "a.txt", "x:y"]],
    ["invalid JSON for call", ["call", "read", "{oops"]],
    ["a write tool in --read-only mode", ["call", "delete", '{"path":"a.txt"}', "--read-only"]],
  ];
  for (const [name, args] of usage) {
    test(`a usage error exits 2: ${name}`, () => {
      const out = runCli(args, root.dir);
      assert.equal(out.status, 2, out.stderr);
      assert.match(out.stderr, /^linewise: /);
    });
  }

  test("call undo says the command line has no session's edits to take back", () => {
    for (const flags of [[], ["--force"]]) {
      const out = runCli(["call", ...flags, "undo", '{"path":"a.txt"}'], root.dir);
      assert.equal(out.status, 2);
      assert.match(out.stderr, /^linewise: undo takes back edits made in the same session/);
    }
  });

  test("grep takes back a path in the quoted form it prints", () => {
    const tree = tempRoot();
    try {
      // (A name that is not UTF-8 cannot come through the command line's words as it is; made by
      // a shell, as Deno's node:fs would take a Buffer path for text.)
      const made = spawnSync("sh", ["-c", `printf 'foo\\n' > "$(printf 'b\\377.t')"`], {
        cwd: tree.dir,
      });
      assert.equal(made.status, 0, String(made.stderr));
      writeFileSync(join(tree.dir, "new\nline.t"), "foo\n");
      const listed = runCli(["grep", "-l", "foo"], tree.dir);
      assert.equal(listed.stdout, '"b\\377.t"\n"new\\nline.t"\n');
      for (const quoted of listed.stdout.trim().split("\n")) {
        const found = runCli(["grep", "-H", "foo", quoted, "nowhere"], tree.dir);
        assert.equal(found.stdout, `${quoted}:1:foo\n`, quoted);
        assert.match(found.stderr, /"nowhere"/);
        assert.equal(found.status, 2);
      }
      // With -0, for xargs -0, a name is printed as it is where it is text, as ripgrep prints it.
      const nul = '"b\\377.t"\0new\nline.t\0';
      assert.equal(runCli(["grep", "-l", "-0", "foo"], tree.dir).stdout, nul);
      assert.equal(runCli(["grep", "--files", "-0"], tree.dir).stdout, nul);
      assert.equal(
        runCli(["grep", "-c", "-0", "foo"], tree.dir).stdout,
        nul.replaceAll("\0", "\x001\n"),
      );
    } finally {
      tree.remove();
    }
  });

  test("grep --max-matches counts every matching line, also beside -l", () => {
    const tree = tempRoot();
    try {
      writeFileSync(join(tree.dir, "a.txt"), "foo\nfoo\nfoo\n");
      writeFileSync(join(tree.dir, "b.txt"), "foo\n");
      const listed = runCli(["grep", "-l", "--max-matches", "2", "foo"], tree.dir);
      assert.equal(listed.stdout, "a.txt\n");
      // (The cap is said: the output is not all there is.)
      assert.equal(listed.stderr, "linewise: stopped at --max-matches 2: more matches exist\n");
      assert.equal(listed.status, 0);
      const all = runCli(["grep", "-l", "--max-matches", "4", "foo"], tree.dir);
      assert.deepEqual([all.stdout, all.stderr], ["a.txt\nb.txt\n", ""]);
      // (Stopped before any file could be told to have none: not "nothing", but stopped.)
      const without = runCli(
        ["grep", "--files-without-match", "--max-matches", "2", "foo"],
        tree.dir,
      );
      assert.deepEqual([without.stdout, without.status], ["", 2]);
      assert.equal(runCli(["grep", "-q", "foo"], tree.dir).stderr, "");
      const counted = runCli(["grep", "-c", "-m", "2", "foo"], tree.dir);
      assert.equal(counted.stdout, "a.txt:2\nb.txt:1\n");
      // (Beside --max-filesize, the cap counts the matches of the files searched alone: a
      // larger file's do not stop the search before the smaller ones after it.)
      writeFileSync(join(tree.dir, "0big.txt"), `foo\nfoo\nfoo\n${"x".repeat(200)}\n`);
      const sized = (max: string) =>
        runCli(["grep", "--max-matches", max, "--max-filesize", "100", "foo"], tree.dir);
      const two = sized("2");
      assert.deepEqual(
        [two.stdout, two.stderr, two.status],
        [
          "a.txt:1:foo\na.txt:2:foo\n",
          "linewise: stopped at --max-matches 2: more matches exist\n",
          0,
        ],
      );
      const four = sized("4");
      assert.deepEqual(
        [four.stdout, four.stderr],
        ["a.txt:1:foo\na.txt:2:foo\na.txt:3:foo\nb.txt:1:foo\n", ""],
      );
      // (A match in the context after the last one taken ends it: no more than the cap shown.)
      const after = runCli(
        ["grep", "-A", "1", "--max-matches", "1", "--max-filesize", "100", "foo"],
        tree.dir,
      );
      assert.equal(after.stdout, "a.txt:1:foo\n");
      const cappedCount = runCli(
        ["grep", "-c", "--max-matches", "3", "--max-filesize", "100", "foo"],
        tree.dir,
      );
      assert.deepEqual([cappedCount.stdout, cappedCount.stderr.length > 0], ["a.txt:3\n", true]);
    } finally {
      tree.remove();
    }
  });

  test("grep prints each file as it is searched: a reader that stops early stops the search", {
    skip: process.platform === "linux" ? false : "counts opens with inotify",
  }, () => {
    // (Every file was searched before the first was printed: \`grep … | head -1\` over the
    // Linux tree took 4.5 s, against ripgrep's 0.01, and held every match in memory.)
    const tree = tempRoot();
    try {
      mkdirSync(join(tree.dir, "a"));
      mkdirSync(join(tree.dir, "b"));
      writeFileSync(join(tree.dir, "a/first.txt"), "hit\n");
      for (let i = 0; i < 5_000; i++) {
        writeFileSync(join(tree.dir, `b/${String(i).padStart(4, "0")}.txt`), "hit\n");
      }
      const bin = ensureBinary();
      const headed = opensWhile(join(tree.dir, "b"), `"${bin}" grep hit | head -1`, tree.dir);
      assert.equal(headed.stdout, "a/first.txt:1:hit\n");
      assert.equal(headed.stderr, "");
      assert.ok(headed.opens < 2_500, `${headed.opens} of b's 5,000 files opened`);
      // (Read to the end, every file is searched and printed.)
      const all = opensWhile(join(tree.dir, "b"), `"${bin}" grep -c hit | wc -l`, tree.dir);
      assert.equal(all.stdout.trim(), "5001");
      assert.equal(all.opens, 5_000);
    } finally {
      tree.remove();
    }
  });

  test("grep waits for a slow reader: what it prints is not queued in memory", {
    skip: process.platform === "linux" ? false : "counts opens with inotify",
  }, () => {
    // (Written through process.stdout, every row waited in the process for the reader: the
    // search went on to the end, and the Linux tree's 732 MB of `grep e drivers/gpu` grew
    // the process to 1.7 GB when piped to `wc -c`.)
    const tree = tempRoot();
    try {
      mkdirSync(join(tree.dir, "b"));
      const lines = `${"hit ".repeat(24)}\n`.repeat(1_000); // (100 KB a file)
      for (let i = 0; i < 300; i++) writeFileSync(join(tree.dir, `b/${i}.txt`), lines);
      const bin = ensureBinary();
      // The reader reads nothing for 2 s, then 100 bytes: the search waits, then stops.
      const slow = opensWhile(
        join(tree.dir, "b"),
        `"${bin}" grep hit | (sleep 2; head -c 100)`,
        tree.dir,
      );
      assert.equal(slow.stdout, `b/0.txt:1:${"hit ".repeat(24)}`.slice(0, 100));
      assert.equal(slow.stderr, "");
      assert.ok(slow.opens < 200, `${slow.opens} of b's 300 files opened`);
    } finally {
      tree.remove();
    }
  });

  test("grep leaves its output as blocking as it found it, for the commands after it", {
    skip: process.platform === "linux" ? false : "reads the flags with fcntl",
  }, () => {
    // (Bun's process.stdout made the pipe non-blocking, for every process sharing it: a
    // command after linewise in `(linewise grep …; cat big) | less` then failed with EAGAIN.)
    const flags =
      `import fcntl, os; print("non-blocking" if fcntl.fcntl(1, fcntl.F_GETFL) & os.O_NONBLOCK else "blocking")`;
    const ran = spawnSync("sh", [
      "-c",
      `("${ensureBinary()}" grep -i t; python3 -c '${flags}') | cat`,
    ], {
      cwd: root.dir,
      encoding: "utf8",
    });
    assert.ok(ran.stdout.length > "blocking\n".length, ran.stderr);
    assert.ok(ran.stdout.endsWith("\nblocking\n"), ran.stdout.slice(-40));
  });

  test("an output that cannot be written is an error (2), said on stderr; a reader gone is not", {
    skip: process.platform === "linux" ? false : "needs /dev/full",
  }, () => {
    // (A full disk was passed over in silence, with status 0.)
    const full = spawnSync("sh", ["-c", `"${ensureBinary()}" grep -i t > /dev/full`], {
      cwd: root.dir,
      encoding: "utf8",
    });
    assert.equal(full.status, 2);
    assert.match(full.stderr, /^linewise: cannot write the output: .*(ENOSPC|no space)/i);
    const gone = spawnSync("sh", ["-c", `"${ensureBinary()}" grep -i t | head -c 1`], {
      cwd: root.dir,
      encoding: "utf8",
    });
    assert.equal(gone.stderr, "");
  });

  test("grep off a terminal prints what it found before what it says on stderr, buffered or not", () => {
    // (Off a terminal the rows are gathered into writes of 8 KiB: a message on stderr flushes
    // them first, so that a reader of both, 2>&1, sees them in order.)
    const tree = tempRoot();
    try {
      writeFileSync(join(tree.dir, "a.txt"), "foo\n");
      writeFileSync(join(tree.dir, "b.txt"), "foo\n");
      for (const flag of ["", "--block-buffered", "--line-buffered"]) {
        const ran = spawnSync("sh", [
          "-c",
          `"${ensureBinary()}" grep ${flag} foo a.txt missing.txt b.txt 2>&1 | cat`,
        ], { cwd: tree.dir, encoding: "utf8", env: cliEnv() });
        const lines = ran.stdout.trimEnd().split("\n");
        assert.equal(lines.length, 3, ran.stdout);
        assert.equal(lines[0], "a.txt:1:foo", flag);
        assert.match(lines[1], /^linewise: .*missing\.txt/, flag);
        assert.equal(lines[2], "b.txt:1:foo", flag);
      }
    } finally {
      tree.remove();
    }
  });

  test("grep, glob and list honour the .gitignore files above the start, up to the repository", () => {
    // (As ripgrep: started in a repository's subdirectory, the top's .gitignore applies; it
    // did not, and agents got dist/ and *.log files git ignores.)
    const top = tempRoot();
    try {
      const at = (path: string) => join(top.dir, path);
      mkdirSync(at("repo/.git"), { recursive: true });
      mkdirSync(at("repo/sub/dist"), { recursive: true });
      mkdirSync(at("repo/sub/deep"), { recursive: true });
      writeFileSync(at("repo/.gitignore"), "*.log\n/sub/deep/\nsub/only.txt\n");
      writeFileSync(at("repo/sub/.gitignore"), "dist/\n");
      for (const file of ["x.log", "y.txt", "dist/z.txt", "deep/d.txt", "only.txt"]) {
        writeFileSync(at(`repo/sub/${file}`), "hit\n");
      }
      const sub = at("repo/sub");
      assert.equal(runCli(["grep", "hit"], sub).stdout, "y.txt:1:hit\n");
      assert.equal(runCli(["glob", "**"], sub).stdout.split("\n")[0], "y.txt");
      assert.equal(runCli(["grep", "-l", "--no-ignore", "hit"], sub).stdout.split("\n").length, 6);
      // Outside a repository the files above are not read, as ripgrep does not read them.
      mkdirSync(at("norepo/sub"), { recursive: true });
      writeFileSync(at("norepo/.gitignore"), "*.log\n");
      writeFileSync(at("norepo/sub/x.log"), "hit\n");
      assert.equal(runCli(["grep", "hit"], at("norepo/sub")).stdout, "x.log:1:hit\n");
    } finally {
      top.remove();
    }
  });

  test("glob and list say what they left out as the command line shows it", () => {
    const root = tempRoot();
    try {
      mkdirSync(join(root.dir, ".git"));
      writeFileSync(join(root.dir, ".ignore"), "a.log\n");
      writeFileSync(join(root.dir, ".gitignore"), "b.txt\n");
      for (const file of ["a.log", "b.txt", "c.txt", ".h.txt"]) {
        writeFileSync(join(root.dir, file), "hit\n");
      }
      // (.ignore and .gitignore left out one each: both are ignore files the CLI reads.)
      const note =
        "[3 hidden entries and 2 ignored entries left out; --include-ignored shows them]\n";
      assert.equal(runCli(["glob", "*.*"], root.dir).stdout, `c.txt\n${note}`);
      assert.equal(runCli(["list"], root.dir).stdout, `file\t4\tc.txt\n${note}`);
      assert.equal(
        runCli(["glob", "--include-ignored", "*.txt"], root.dir).stdout.split("\n").length,
        4,
      );
      // (The tool's arguments, given as JSON, keep the tool's words.)
      assert.match(
        runCli(["call", "list", "{}"], root.dir).stdout,
        /include_ignored=true shows them/,
      );
    } finally {
      root.remove();
    }
  });

  test("grep, glob and list honour the repository's .git/info/exclude, below every .gitignore", () => {
    // (As ripgrep: files a user keeps out of git in .git/info/exclude were searched.)
    const top = tempRoot();
    try {
      const at = (path: string) => join(top.dir, path);
      mkdirSync(at("repo/.git/info"), { recursive: true });
      mkdirSync(at("repo/sub"), { recursive: true });
      writeFileSync(at("repo/.git/info/exclude"), "# mine\n*.tmp\n/notes.md\nsub/keep.tmp\n");
      writeFileSync(at("repo/sub/.gitignore"), "!keep.tmp\n");
      for (
        const file of ["a.tmp", "notes.md", "b.txt", "sub/notes.md", "sub/c.tmp", "sub/keep.tmp"]
      ) {
        writeFileSync(at(`repo/${file}`), "hit\n");
      }
      const repo = at("repo");
      const found = (args: string[], cwd: string) =>
        runCli(["grep", "-l", ...args, "hit"], cwd).stdout.split("\n").filter(Boolean).sort();
      // (The .gitignore of sub/ takes keep.tmp back: an exclude rule gives way to it.)
      assert.deepEqual(found([], repo), ["b.txt", "sub/keep.tmp", "sub/notes.md"]);
      assert.deepEqual(found([], at("repo/sub")), ["keep.tmp", "notes.md"]);
      assert.equal(runCli(["glob", "**/*.tmp"], repo).stdout.split("\n")[0], "sub/keep.tmp");
      assert.equal(found(["--no-ignore"], repo).length, 6);
      // (Globs that take every name still leave .git alone.)
      writeFileSync(at("repo/.git/hit.txt"), "hit\n");
      assert.deepEqual(
        found(["-g", "*", "-g", ".*"], repo).filter((p) => p.startsWith(".git")),
        [],
      );
      // A worktree's .git is a file: the exclude file is the main repository's (commondir).
      const git = (...args: string[]) =>
        spawnSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: repo });
      if (git("init", "-q", "-b", "main").status === 0) {
        assert.equal(git("add", "b.txt").status, 0);
        assert.equal(git("commit", "-q", "-m", "b").status, 0);
        assert.equal(git("worktree", "add", "-q", at("wt")).status, 0);
        writeFileSync(at("repo/.git/info/exclude"), "*.tmp\n");
        writeFileSync(at("wt/x.tmp"), "hit\n");
        assert.deepEqual(found([], at("wt")), ["b.txt"]);
      }
    } finally {
      top.remove();
    }
  });

  test("a repository inside another has its own rules alone, as in ripgrep", () => {
    // (The outer .gitignore and exclude file held inside it; its own exclude file did not.)
    const top = tempRoot();
    try {
      const at = (path: string) => join(top.dir, path);
      mkdirSync(at(".git/info"), { recursive: true });
      mkdirSync(at("nested/.git/info"), { recursive: true });
      mkdirSync(at("nested/inner"), { recursive: true });
      writeFileSync(at(".gitignore"), "*.log\n");
      writeFileSync(at(".git/info/exclude"), "top-ex.txt\n");
      writeFileSync(at("nested/.git/info/exclude"), "n.txt\n");
      writeFileSync(at("nested/inner/.gitignore"), "deep.txt\n");
      const files = ["a.log", "top-ex.txt", "nested/b.log", "nested/top-ex.txt", "nested/n.txt"];
      for (
        const file of [...files, "nested/ok.txt", "nested/inner/deep.txt", "nested/inner/x.log"]
      ) {
        writeFileSync(at(file), "hit\n");
      }
      const inner = ["nested/b.log", "nested/inner/x.log", "nested/ok.txt", "nested/top-ex.txt"];
      const found = (args: string[], cwd: string) =>
        runCli([...args], cwd).stdout.split("\n").filter((line) => line && !line.startsWith("["))
          .sort();
      assert.deepEqual(found(["grep", "-l", "hit"], top.dir), inner);
      assert.deepEqual(found(["grep", "-l", "hit", "nested"], top.dir), inner);
      assert.deepEqual(found(["grep", "-l", "hit", "nested/inner"], top.dir), [inner[1]]);
      assert.deepEqual(
        found(["grep", "-l", "hit"], at("nested")),
        inner.map((path) => path.slice("nested/".length)),
      );
      assert.deepEqual(found(["glob", "**/*.*"], top.dir), inner);
    } finally {
      top.remove();
    }
  });

  test("a binary file named on the line over 64 MiB is said not to be searched", () => {
    // (Sparse: 65 MiB on disk costs nothing. A named binary file is otherwise looked through.)
    const big = join(root.dir, "big.bin");
    writeFileSync(big, "hit\0\n");
    truncateSync(big, 65 * 1024 * 1024);
    try {
      const out = runCli(["grep", "hit", "big.bin"], root.dir);
      // (Not searched is an error, not "no match": ripgrep would have found it.)
      assert.equal(out.status, 2);
      assert.equal(out.stderr, "linewise: big.bin: a binary file over 64 MiB, not searched\n");
    } finally {
      rmSync(big);
    }
  });

  test("a reader slower than the command still receives all of a large output", () => {
    const big = tempRoot();
    try {
      for (let i = 0; i < 2000; i++) {
        writeFileSync(
          join(big.dir, `file-with-a-long-name-${String(i).padStart(5, "0")}.txt`),
          "x\n",
        );
      }
      // The shell's reader sleeps before reading, so the command finishes first.
      const piped = spawnSync("sh", ["-c", `"${ensureBinary()}" list --json | (sleep 0.3; cat)`], {
        cwd: big.dir,
        encoding: "utf8",
        maxBuffer: 1 << 24,
      });
      assert.equal(piped.status, 0, piped.stderr);
      const out = piped.stdout;
      assert.ok(out.length > 65536, "more than a pipe's buffer");
      assert.equal(JSON.parse(out).total, 2000, "the whole JSON arrived");
    } finally {
      big.remove();
    }
  });

  test("a grep on a terminal shows its progress on stderr, and wipes it at the end", async () => {
    const tree = join(root.dir, "many");
    mkdirSync(tree);
    for (let i = 0; i < 300; i++) {
      writeFileSync(join(tree, `f${i}.txt`), i === 7 ? "needle\n" : "hay\n");
    }
    let out = "";
    let err = "";
    const run = (io: Partial<Parameters<typeof main>[1]>) =>
      main(["grep", "needle", "--root", tree], {
        stdout: (t) => out += t,
        stderr: (t) => err += t,
        ...io,
      });
    assert.equal(await run({ stderrIsTerminal: true, progressAfterMs: 0 }), 0);
    assert.equal(out, "f7.txt:1:needle\n");
    assert.ok(err.startsWith("\r\x1b[Klinewise: searching .: "), JSON.stringify(err));
    assert.match(err, /searching \.: \d+ (of \d+ )?files/);
    assert.ok(err.endsWith("\r\x1b[K"), "the line is wiped");
    err = "";
    assert.equal(await run({ stderrIsTerminal: false, progressAfterMs: 0 }), 0);
    assert.equal(err, "", "no progress off a terminal");
  });

  test("an internal error is said with its stack, and the process is ended", async () => {
    let err = "";
    const exits: number[] = [];
    const status = await main(["--version"], {
      stdout: () => {
        throw new Error("the output broke");
      },
      stderr: (t) => err += t,
      // (A thread started before the failure would keep a server alive, answering nothing.)
      exit: (code) => exits.push(code),
    });
    assert.equal(status, 1);
    assert.deepEqual(exits, [1]);
    assert.match(err, /^linewise: internal error: the output broke; please report it\nError: /);
  });

  test("main() runs in-process with its own output functions", async () => {
    let out = "";
    let err = "";
    const status = await main(["read", join(root.dir, "a.txt"), "1:1", "--root", root.dir], {
      stdout: (t) => out += t,
      stderr: (t) => err += t,
    });
    assert.equal(status, 0, err);
    const now = readFileSync(join(root.dir, "a.txt"), "utf8");
    assert.equal(out, `[version ${versionOf(now)}]\n1\tone\r\n`);
  });
});
