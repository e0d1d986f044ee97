// The thread of bench/post_strings.ts: packs a result of 84,000 rows and posts it, whole or as
// its strings and then the rest, as told; says how long the posting took on this thread.
import { packResult, splitStrings } from "../src/disk/_packed_result.ts";
import type { SearchResult } from "../src/store/file_store.ts";

type Scope = {
  onmessage: ((event: MessageEvent<"whole" | "split">) => void) | null;
  postMessage(message: unknown, transfer?: Transferable[]): void;
};

/** 84,000 rows of about 63 characters in 6,000 files, a tenth of them with a character beyond Latin-1. */
const original: SearchResult = {
  files: Array.from({ length: 6000 }, (_, f) => ({
    path: `src/module${f}/file${f}.js`,
    invalidUtf8: false,
    rows: Array.from({ length: 14 }, (_, r) => ({
      line: r * 7 + 1,
      text: `    var x${f}_${r} = compute(input, "value", ${r}); // some words${
        r % 10 === 0 ? " 中" : ""
      }\n`,
      match: { start: 4, end: 7 },
    })),
  })),
  matchedLines: 84000,
  filesSearched: 6000,
  binaryFilesSkipped: 0,
  filesNotSearched: 0,
};

const scope = globalThis as unknown as Scope;
scope.onmessage = (event) => {
  const { packed, transfer } = packResult(original, undefined);
  const length = packed.files.texts.length;
  const start = performance.now();
  const startedAt = performance.timeOrigin + start;
  if (event.data === "split") {
    const { strings, rest } = splitStrings(packed);
    scope.postMessage({ strings: true, ...strings });
    scope.postMessage({ result: rest }, transfer);
  } else scope.postMessage({ result: packed }, transfer);
  scope.postMessage({ took: performance.now() - start, startedAt, length });
};
