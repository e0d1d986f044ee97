import { DirectoryStore } from "./src/disk/directory_store.ts";
import { regexMatcher } from "./src/core/mod.ts";
const root = "/work/main/bench/.corpus/linux-source-6.1/drivers/net";
const store = await DirectoryStore.create({ roots: [root], searchIndex: false, searchThread: process.env.THREAD === "1", searchThreads: 1 } as any);
for (let i = 0; i < 4; i++) {
  const t0 = performance.now();
  const r: any = await store.search({ matcher: regexMatcher(process.env.PAT ?? "static"), maxMatches: 100_000_000, rowCut: 2000 });
  console.log("search", (performance.now() - t0).toFixed(0), r.matchedLines);
}
process.exit(0);
