import { DirectoryStore } from "./src/disk/directory_store.ts";
import { regexMatcher } from "./src/core/mod.ts";
const root = "/work/main/bench/.corpus/linux-source-6.1/drivers/net";
const store = await DirectoryStore.create({ roots: [root], searchIndex: false, searchThread: false, searchThreads: 1 } as any);
const pats = ["[a-z]+_[a-z]+_[a-z]+\\(", "\\bint\\b", "static", "EXPORT_SYMBOL_GPL\\(", "\\w+\\s*=\\s*NULL;", "struct \\w+ \\*", "->priv"];
const out: Record<string, number[]> = {};
for (let i = 0; i < 4; i++) for (const p of pats) {
  const t0 = performance.now();
  const r: any = await store.search({ matcher: regexMatcher(p), maxMatches: 100_000_000, rowCut: 2000 });
  if (i > 0) (out[p] ??= []).push(performance.now() - t0);
}
console.log(process.env.LW_GAP, Object.entries(out).map(([p, xs]) => `${p} ${Math.min(...xs).toFixed(0)}`).join(" | "));
process.exit(0);
