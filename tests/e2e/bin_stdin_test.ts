// End to end: `linewise grep` searches standard input as ripgrep does (`-`, or no path while
// it is a pipe or a file), through real shell pipes, and never waits without end on a pipe it
// was not asked to read.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import { join } from "node:path";
import { cliEnv, ensureBinary, runCli, tempRoot } from "../_helpers/binary.ts";
import { main } from "../../src/cli/main.ts";

describe("linewise grep and standard input", () => {
  const tree = tempRoot();
  before(() => {
    fs.writeFileSync(join(tree.dir, "a.txt"), "foo in a file\n");
    fs.writeFileSync(join(tree.dir, "-"), "foo dash\n");
  });
  after(() => tree.remove());

  /** Runs a shell line in the tree, `$LW` being the binary. */
  function sh(line: string) {
    const started = performance.now();
    const run = spawnSync("bash", ["-c", line], {
      cwd: tree.dir,
      encoding: "utf8",
      env: { ...cliEnv(), LW: ensureBinary() },
      stdio: ["ignore", "pipe", "pipe"],
      timeout: 30_000,
    });
    return { ...run, ms: performance.now() - started };
  }

  test("a pipe into grep without a path is what it searches, not the folder", () => {
    const run = sh(`printf 'foo\\nbar\\nfoo bar\\n' | "$LW" grep foo`);
    assert.equal(run.stderr, "");
    assert.equal(run.stdout, "1:foo\n3:foo bar\n");
    assert.equal(run.status, 0);
    assert.equal(sh(`printf 'foo\\n' | "$LW" grep -H foo`).stdout, "<stdin>:1:foo\n");
    const none = sh(`printf 'bar\\n' | "$LW" grep foo`);
    assert.deepEqual([none.status, none.stdout], [1, ""]);
    // (A pipe closed at once is an empty input: nothing matches, as in ripgrep.)
    assert.equal(sh(`true | "$LW" grep foo`).status, 1);
  });

  test("a file as standard input is searched, and /dev/null leaves the folder searched", () => {
    assert.equal(sh(`"$LW" grep foo < a.txt`).stdout, "1:foo in a file\n");
    assert.equal(sh(`"$LW" grep -c foo < /dev/null`).stdout, "-:1\na.txt:1\n");
  });

  test("- names it beside other paths, and ./- is a file named -", () => {
    const run = sh(`printf 'foo\\nfoo\\n' | "$LW" grep -c foo - a.txt`);
    assert.equal(run.stdout, "<stdin>:2\na.txt:1\n");
    assert.equal(runCli(["grep", "foo", "./-"], tree.dir).stdout, "1:foo dash\n");
  });

  test("/dev/stdin and its other names are -, which the sandbox would refuse", () => {
    for (const name of ["/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"]) {
      assert.equal(sh(`printf 'foo\\nx\\n' | "$LW" grep foo ${name}`).stdout, "1:foo\n");
      const both = sh(`printf 'foo\\n' | "$LW" grep -c foo ${name} a.txt`);
      assert.deepEqual([both.stdout, both.status], ["<stdin>:1\na.txt:1\n", 0]);
      // (Patterns read from it are not searched for in it too.)
      const patterns = sh(`printf 'dash\\n' | "$LW" grep -f ${name} ./-`);
      assert.deepEqual([patterns.stdout, patterns.status], ["1:foo dash\n", 0]);
      const twice = sh(`printf 'dash\\n' | "$LW" grep -f ${name} -`);
      assert.match(twice.stderr, /-f - read the patterns from standard input/);
      assert.equal(twice.status, 2);
      const json = sh(`printf 'foo\\n' | "$LW" grep --json foo ${name}`);
      assert.equal(JSON.parse(json.stdout).files[0].path, "<stdin>");
    }
  });

  test("grep --json gives the grep tool's result over it, named <stdin>, whatever -g says", () => {
    for (
      const line of [
        `printf 'x\\nfoo\\n' | "$LW" grep --json foo`,
        `printf 'x\\nfoo\\n' | "$LW" grep --json foo -`,
        `printf 'x\\nfoo\\n' | "$LW" grep --json foo -g '*.ts'`,
      ]
    ) {
      const run = sh(line);
      assert.equal(run.status, 0, run.stderr);
      const found = JSON.parse(run.stdout);
      assert.deepEqual([found.files.length, found.files[0].path, found.files[0].lines], [
        1,
        "<stdin>",
        [2],
      ], line);
    }
  });

  test("a socket, what a program's spawn gives, is searched for - alone", () => {
    // (Python's socketpair: one end is the command's standard input. A program that spawns
    // a command by default leaves such a socket open, or closes it, without meaning input.)
    const script = (send: string, path: string) =>
      `import socket, subprocess, sys
a, b = socket.socketpair()
${send}
run = subprocess.run([sys.argv[1], "grep", "foo"${path}], stdin=a, capture_output=True, text=True, timeout=20)
print(run.returncode, repr(run.stdout), repr(run.stderr))`;
    const send = 'b.sendall(b"x\\nfoo 2\\n"); b.close()';
    const folder = sh(`python3 -c '${script(send, "")}' "$LW"`);
    assert.equal(folder.stdout, "0 '-:1:foo dash\\na.txt:1:foo in a file\\n' ''\n", folder.stderr);
    const named = sh(`python3 -c '${script(send, ', "-"')}' "$LW"`);
    assert.equal(named.stdout, "0 '2:foo 2\\n' ''\n", named.stderr);
    // (Left open and silent: the folder is searched at once.)
    const open = sh(`python3 -c '${script("pass", "")}' "$LW"`);
    assert.equal(open.stdout, "0 '-:1:foo dash\\na.txt:1:foo in a file\\n' ''\n", open.stderr);
  });

  test("a second - reads nothing, as in ripgrep", () => {
    assert.equal(sh(`printf 'foo\\n' | "$LW" grep foo - -`).stdout, "<stdin>:1:foo\n");
    const without = sh(`printf 'foo\\n' | "$LW" grep --files-without-match foo - -`);
    assert.deepEqual([without.status, without.stdout], [0, "<stdin>\n"]);
  });

  test("a search stopped by the time budget says that alone", () => {
    // (Its one match at the end of an input that takes longer than that to come: no count.)
    const run = sh(`seq 1 3000000 | "$LW" grep --timeout 0.01 -c 2999999`);
    assert.equal(run.stderr, "linewise: stopped by the time budget (--timeout)\n");
    assert.equal(run.stdout, "");
    assert.equal(run.status, 2);
    // (So does one of the current folder stopped before a file was searched.)
    const many = join(tree.dir, "many");
    fs.mkdirSync(many);
    for (let i = 0; i < 3_000; i++) fs.writeFileSync(join(many, `${i}.txt`), "x\n");
    try {
      const folder = sh(`cd many && "$LW" grep --timeout 0.001 -c zzz < /dev/null`);
      assert.equal(folder.stderr, "linewise: stopped by the time budget (--timeout)\n");
      assert.equal(folder.status, 2);
    } finally {
      fs.rmSync(many, { recursive: true });
    }
  });

  test("a binary input says that it matches, as a binary file named on the line", () => {
    const run = sh(`printf 'a\\0b foo\\n' | "$LW" grep foo`);
    assert.equal(run.stdout, 'binary file matches (found "\\0" byte around offset 1)\n');
    assert.equal(run.status, 0);
  });

  test("a pipe another process made non-blocking is waited for too", () => {
    // (Python sets the pipe's read end non-blocking, then writes after 0.3 s.)
    const script = `import os, subprocess, sys, time
r, w = os.pipe()
os.set_blocking(r, False)
child = subprocess.Popen([sys.argv[1], "grep", "foo"], stdin=r, stdout=subprocess.PIPE, text=True)
os.close(r)
time.sleep(0.3)
os.write(w, b"x\\nfoo late\\n")
os.close(w)
out, _ = child.communicate(timeout=20)
print(child.returncode, repr(out))`;
    const run = sh(`python3 -c '${script}' "$LW"`);
    assert.equal(run.stdout, "0 '2:foo late\\n'\n", run.stderr);
  });

  test("- with no standard input to read is refused (the module's main without one)", async () => {
    const said: string[] = [];
    const status = await main(["grep", "foo", "-"], {
      stdout: () => {},
      stderr: (text) => void said.push(text),
    });
    assert.equal(status, 2);
    assert.match(said.join(""), /^linewise: - \(standard input\): there is none here\n/);
  });

  test("a pipe slow to send is waited for, as grep and ripgrep wait", () => {
    const waited = sh(`(sleep 1.5; echo foo) | "$LW" grep foo`);
    assert.deepEqual([waited.status, waited.stdout, waited.stderr], [0, "1:foo\n", ""]);
  });

  test("what cannot be read is said, and nothing is searched", () => {
    const big = join(tree.dir, "..", `big-${process.pid}.bin`);
    fs.writeFileSync(big, "");
    fs.truncateSync(big, 256 * 1024 * 1024 + 1); // (sparse: read as zeros at once)
    try {
      const over = sh(`"$LW" grep foo - < "${big}"`);
      assert.equal(over.status, 2);
      assert.match(over.stderr, /^linewise: standard input is over 256 MiB: save it to a file/);
      // (Binary, over the 64 MiB looked through: not searched, and an error, not "no match".)
      fs.truncateSync(big, 100_000_000);
      const binary = sh(
        `printf 'foo' | dd of="${big}" conv=notrunc 2> /dev/null; "$LW" grep foo - < "${big}"`,
      );
      assert.equal(binary.stderr, "linewise: <stdin>: a binary file over 64 MiB, not searched\n");
      assert.equal(binary.status, 2);
      // (Open for writing only: a read fails.)
      const unread = sh(`"$LW" grep foo - 0> "${big}"`);
      assert.equal(unread.status, 2);
      assert.match(unread.stderr, /^linewise: cannot read standard input: /);
    } finally {
      fs.rmSync(big);
    }
  });

  test("- is refused where it cannot be searched", () => {
    const files = sh(`printf 'x\\n' | "$LW" grep --files -`);
    assert.equal(files.status, 2);
    assert.match(
      files.stderr,
      /^linewise: --files lists the files .*: - \(standard input\) is none/,
    );
    const patterns = sh(`printf 'foo\\n' | "$LW" grep -f - -`);
    assert.equal(patterns.status, 2);
    assert.match(patterns.stderr, /^linewise: -f - read the patterns from standard input/);
    // (Patterns from it, and no path: the folder is searched.)
    assert.equal(sh(`printf 'foo dash\\n' | "$LW" grep -f -`).stdout, "-:1:foo dash\n");
  });

  test("text is searched as it comes: a row is printed when its line is written", async () => {
    // (Named: the runtime may give a socket, which a grep without a path does not read.)
    const child = spawn(ensureBinary(), ["grep", "ERROR", "-"], {
      cwd: tree.dir,
      env: cliEnv(),
    });
    const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
    let out = "";
    let wanted: { text: string; resolve: () => void } | undefined;
    child.stdout.on("data", (chunk) => {
      out += chunk;
      if (wanted !== undefined && out.includes(wanted.text)) wanted.resolve();
    });
    /** Waits until `text` is printed (at most 20 s: not printed before the input ends). */
    const printed = (text: string) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${text} not printed: ${out}`)), 20_000);
        wanted = { text, resolve: () => (clearTimeout(timer), resolve()) };
        if (out.includes(text)) wanted.resolve();
      });
    try {
      child.stdin.write("a\nERROR one\n");
      await printed("2:ERROR one\n");
      child.stdin.write("b\nERROR two\nc");
      await printed("4:ERROR two\n");
      child.stdin.end(" ERROR three");
      assert.equal(await exited, 0);
      assert.equal(out, "2:ERROR one\n4:ERROR two\n5:c ERROR three\n");
    } finally {
      child.kill();
    }
  });

  test("an input of any length is searched, and -q and -m stop reading it", () => {
    // (300 MB: read whole, it was refused over 256 MiB.)
    const long = sh(`yes abcdefghij | head -c 300000000 | "$LW" grep -c j`);
    assert.deepEqual([long.status, long.stdout, long.stderr], [0, "27272727\n", ""]);
    // (An input without end: the search stops, and with it the pipe.)
    const quiet = sh(`yes foo | "$LW" grep -q foo; echo "status $?"`);
    assert.equal(quiet.stdout, "status 0\n");
    assert.equal(sh(`yes foo | "$LW" grep -m 2 -A 1 foo`).stdout, "1:foo\n2:foo\n3:foo\n");
    // (Counted in the bytes, as the lines come.)
    assert.equal(sh(`yes foo | "$LW" grep -c -m 2 foo`).stdout, "2\n");
  });

  test("a pipe named on the line, <(cmd), is read as standard input is, under its name", () => {
    // (bash names them /dev/fd/63, /dev/fd/62, …, as ripgrep shows them.)
    const two = sh(
      `"$LW" grep foo <(printf 'a foo\\nb\\n') a.txt <(sleep 0.3; printf 'c\\nfoo d\\n')`,
    );
    assert.equal(two.stderr, "");
    assert.match(
      two.stdout,
      /^\/dev\/fd\/(\d+):1:a foo\na\.txt:1:foo in a file\n\/dev\/fd\/(\d+):2:foo d\n$/,
    );
    assert.equal(two.status, 0);
    const binary = sh(`"$LW" grep -H foo <(printf 'x\\0foo\\n')`);
    assert.match(
      binary.stdout,
      /^\/dev\/fd\/\d+: binary file matches \(found "\\0" byte around offset 1\)\n$/,
    );
    // (A descriptor that is a file, or none, is a path as any other: outside the root here.)
    const file = sh(`"$LW" grep foo /dev/fd/3 3<a.txt; echo "status $?"`);
    assert.match(file.stderr, /^linewise: path "\/dev\/fd\/3" is outside the allowed roots/);
    assert.equal(file.stdout, "status 2\n");
  });

  test("a line of it over 256 MiB is refused, after the rows before it", () => {
    const run = sh(`(echo foo; head -c 270000000 /dev/zero | tr '\\0' a) | "$LW" grep foo`);
    assert.equal(run.stdout, "1:foo\n");
    assert.equal(
      run.stderr,
      "linewise: a line of standard input is over 256 MiB: save it to a file and search that\n",
    );
    assert.equal(run.status, 2);
  });
});
