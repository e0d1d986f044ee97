// countLf in WebAssembly (ranges copied into its memory) against the same count in
// JavaScript, over a C file of the Linux tree's size class cut into ranges of a given size.
//   deno bench bench/count_lf_bench.ts
import { countLf, countLfInJs } from "../src/io/_count_lf.ts";

/** About 200 KB of C-like lines, deterministic. */
const text = new TextEncoder().encode(
  Array.from({ length: 6000 }, (_, i) => `\tif (x${i % 97} > ${i}) return foo(bar, ${i});`)
    .join("\n"),
);

for (const size of [256, 1024, 16 * 1024, text.length]) {
  const group = `${size} bytes`;
  const ranges = Math.floor(text.length / size);
  Deno.bench(`JavaScript, ${size}`, { group, baseline: true }, () => {
    for (let i = 0; i < ranges; i++) countLfInJs(text, i * size, (i + 1) * size);
  });
  Deno.bench(`countLf, ${size}`, { group }, () => {
    for (let i = 0; i < ranges; i++) countLf(text, i * size, (i + 1) * size);
  });
}
