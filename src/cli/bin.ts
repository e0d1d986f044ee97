// The executable's entry: runs the command line with the process's arguments and streams.
// (No top-level await: `bun build --compile --bytecode` needs a plain script.)
import process from "node:process";
import { main } from "./main.ts";

// A reader that goes away (`linewise grep … | head`) must not crash the command.
process.stdout.on("error", () => process.exit(0));
main(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
}).then((status) => {
  // Exit once stdout is flushed: under Deno a pending stdin read would keep `serve` alive.
  process.stdout.write("", () => process.exit(status));
});
