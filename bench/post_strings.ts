// A packed search result crossing from a thread to the main one (src/disk/_packed_result.ts):
// posted whole, against its strings posted alone ahead of the rest (`splitStrings`), in
// turns in one run. Bun hands a message of strings and numbers alone over as it is and
// serializes any other. The time on the posting thread, and until the main thread has the
// result (the rows are checked on arrival). 84,000 rows of about 63 characters
// (bench/_post_strings_worker.ts).
//   bun bench/post_strings.ts [rounds]     (or deno run -A bench/post_strings.ts)
import process from "node:process";
import { type PackedResult, type PackedStrings, withStrings } from "../src/disk/_packed_result.ts";

const rounds = Number(process.argv[2] ?? 9);
const worker = new Worker(new URL("./_post_strings_worker.ts", import.meta.url).href, {
  type: "module",
});
const times: Record<string, number[]> = { whole: [], split: [] };
const arrivals: Record<string, number[]> = { whole: [], split: [] };
let arrived = 0;
const ways = Array.from({ length: 2 * rounds }, (_, i) => (i % 2 ? "split" : "whole"));
let strings: PackedStrings | undefined;
let packed: PackedResult | undefined;

worker.onmessage = (event: MessageEvent) => {
  const data = event.data;
  if ("strings" in data) strings = data;
  else if ("result" in data) {
    packed = strings ? withStrings(data.result, strings) : data.result;
    arrived = performance.timeOrigin + performance.now();
  } else {
    if (packed?.files.texts.length !== data.length) {
      throw new Error("the rows did not arrive");
    }
    times[ways[0]].push(data.took);
    arrivals[ways[0]].push(arrived - data.startedAt);
    ways.shift();
    strings = packed = undefined;
    if (ways.length > 0) return worker.postMessage(ways[0]);
    const median = (v: number[]) => v.sort((a, b) => a - b)[v.length >> 1].toFixed(1);
    console.log(`medians of ${rounds}: posting, and until the main thread has the result`);
    console.log(`posted whole: ${median(times.whole)} ms, ${median(arrivals.whole)} ms`);
    console.log(
      `its strings alone, then the rest: ${median(times.split)} ms, ${median(arrivals.split)} ms`,
    );
    process.exit(0);
  }
};
worker.postMessage(ways[0]);
