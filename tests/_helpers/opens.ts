import { spawnSync } from "node:child_process";

/**
 * Runs a shell command while counting the files opened in a directory (inotify's IN_OPEN,
 * which node:fs lacks, through python3 and ctypes), so that a test can tell how much of a
 * tree a command read without timing it.
 *
 * @param dir the directory whose files' opens are counted (not those below it)
 * @param command a `sh -c` command line
 * @param cwd where it runs
 * @returns the opens counted, and the command's status and output
 */
export function opensWhile(dir: string, command: string, cwd: string) {
  const script = `
import ctypes, os, struct, subprocess, sys
libc = ctypes.CDLL(None, use_errno=True)
fd = libc.inotify_init1(os.O_NONBLOCK)
if fd < 0 or libc.inotify_add_watch(fd, sys.argv[1].encode(), 0x20) < 0: sys.exit(3)
ran = subprocess.run(["sh", "-c", sys.argv[2]], cwd=sys.argv[3], capture_output=True)
opens = 0
while True:
    try: data = os.read(fd, 65536)
    except BlockingIOError: break
    at = 0
    while at < len(data):
        _, mask, _, length = struct.unpack_from("iIII", data, at)
        if mask & 0x20 and not mask & 0x40000000: opens += 1
        at += 16 + length
sys.stdout.write(f"{opens} {ran.returncode}\\n")
sys.stdout.flush()
os.write(1, ran.stdout)
os.write(2, ran.stderr)
`;
  const ran = spawnSync("python3", ["-c", script, dir, command, cwd], { encoding: "utf8" });
  if (ran.status !== 0) throw new Error(`python3 could not count opens: ${ran.stderr}`);
  const newline = ran.stdout.indexOf("\n");
  const [opens, status] = ran.stdout.slice(0, newline).split(" ").map(Number);
  return { opens, status, stdout: ran.stdout.slice(newline + 1), stderr: ran.stderr };
}
