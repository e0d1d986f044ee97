// The bytes a model sends and reads in the grep → read → edit loop (a grep, then for three
// of the files found a read of 21 lines and a one-line replace_lines), through the tools of
// the linewise checkout given, over a copy of the CORPUS tree. Run it for two checkouts over
// one corpus to compare them (--expected-text: the edits carry expected_text):
//
//   deno run -A bench/versions/loop_bytes.ts CHECKOUT CORPUS [--expected-text]
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import process from "node:process";

const checkout = path.resolve(process.argv[2] ?? ".");
const corpus = path.resolve(process.argv[3] ?? "src");
const { createTools } = await import(path.join(checkout, "src/tools/mod.ts"));
const { DirectoryStore } = await import(path.join(checkout, "src/disk/mod.ts"));

type Result = { content: Array<{ text: string }>; structuredContent?: unknown; isError?: boolean };

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "linewise-loop-"));
fs.cpSync(corpus, path.join(dir, "src"), { recursive: true });
const store = await DirectoryStore.create({ roots: [dir] });
const tools = createTools(store);
const bytes = (s: string) => new TextEncoder().encode(s).length;
let sent = 0;
let read = 0;
let structured = 0;
async function call(name: string, args: Record<string, unknown>): Promise<Result> {
  sent += bytes(JSON.stringify({ name, arguments: args }));
  const result = await tools.find((t: { name: string }) => t.name === name).call(args) as Result;
  read += bytes(result.content.map((c) => c.text).join(""));
  structured += bytes(JSON.stringify(result.structuredContent ?? {}));
  if (result.isError) throw new Error(result.content[0].text);
  return result;
}

const withExpected = process.argv.includes("--expected-text");
const grep = await call("grep", { pattern: "maxEditBytes", path: "src" });
const files = (grep.structuredContent as { files: Array<{ path: string; lines: number[] }> }).files;
for (const file of files.slice(0, 3)) {
  const line = file.lines[0];
  const shown = await call("read", {
    path: file.path,
    start_line: Math.max(1, line - 10),
    end_line: line + 10,
  });
  const row = shown.content[0].text.split("\n").find((r) => r.startsWith(`${line}\t`))!;
  const text = row.slice(row.indexOf("\t") + 1);
  const edit: Record<string, unknown> = { start_line: line, new_text: text + " // edited" };
  if (withExpected) edit.expected_text = text;
  await call("replace_lines", { path: file.path, edits: [edit] });
}
console.log(
  JSON.stringify({ checkout, withExpected, files: files.length, sent, read, structured }),
);
store.close?.();
fs.rmSync(dir, { recursive: true, force: true });
