// Shared by the tests of what a module says on stderr (through console.error).

/** console.error's lines while `run` runs, and what it returned. */
export async function stderrOf<T>(run: () => Promise<T>): Promise<{ value: T; lines: string[] }> {
  const lines: string[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => void lines.push(args.join(" "));
  try {
    return { value: await run(), lines };
  } finally {
    console.error = original;
  }
}
