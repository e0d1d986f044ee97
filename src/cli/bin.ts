// The executable's entry: runs the command line with the process's arguments and streams.
// (No top-level await: `bun build --compile --bytecode` needs a plain script.)
import process from "node:process";
import { isatty } from "node:tty";
import { blockingOutput } from "./_stdout.ts";
import { PATTERN_HELPER_ENV, runPatternHelper } from "../match/pattern_helper.ts";
import { main } from "./main.ts";
import { descriptorNamed, namedPipe, processStdin } from "./_stdin.ts";
import { isCompiledBinary, relaunchForSearch } from "../io/runtime.ts";

// A server or a grep runs with the JIT settings of a search (the binary runs again at once),
// unless it is given a descriptor to read (`<(cmd)`): Bun's execve leaves it closed.
const args = process.argv.slice(2);
const searches = args.includes("serve") || args.includes("grep");
if (searches && !args.some((arg) => descriptorNamed(arg) !== undefined)) relaunchForSearch(args);

// The binary run again as the helper that scans for patterns that may run without end.
// (Only the binary is run so; asking the environment elsewhere would need Deno's --allow-env.)
if (isCompiledBinary() && process.env[PATTERN_HELPER_ENV] === "1") {
  runPatternHelper().then(() => process.exit(0));
} else run();

function run(): void {
  // Written with blocking calls, so that a slow reader holds the search back (see
  // _stdout.ts). A reader that goes away (`linewise grep … | head`) must not crash the
  // command; any other failure to write (a full disk) is said, and is an error (2), as
  // ripgrep says it.
  const stdout = blockingOutput(1, (error) => {
    if (error.code === "EPIPE") process.exit(0);
    process.stderr.write(`linewise: cannot write the output: ${error.message}\n`);
    process.exit(2);
  });
  main(process.argv.slice(2), {
    stdin: processStdin(),
    pipe: namedPipe,
    stdout,
    stdoutIsTerminal: isatty(1),
    stderrIsTerminal: isatty(2),
    stderr: (text) => process.stderr.write(text),
    // (A server writes through process.stdout: it exits once that has taken everything, as
    // process.exit drops writes still queued for a pipe.)
    exit: (status) => process.stdout.write("", () => process.exit(status)),
  }).then((status) => {
    process.exitCode = status;
  });
}
