// Shared by the tests of the code in the documentation: its fenced blocks, and a block made a
// module of this project (what it imports by the package's name, or relative to the file it
// is in, resolved to the project's modules).
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { PROJECT } from "./binary.ts";

/** A fenced code block: its language, what follows that on the fence line, and its code. */
export interface FencedBlock {
  language: string;
  attributes: string;
  code: string;
  /** Where its opening fence starts in the text. */
  index: number;
}

/** The fenced blocks of Markdown text (or of a documentation comment, stripped of its `*`s). */
export function fencedBlocks(text: string): FencedBlock[] {
  return [...text.matchAll(/^```(\w*)([^\n]*)\n([\s\S]*?)^```$/gm)].map((match) => ({
    language: match[1],
    attributes: match[2],
    code: match[3],
    index: match.index,
  }));
}

/**
 * A block as a module of this project: `@linewise/linewise` and its `/core` mapped to their
 * modules, and, given the folder of the file it is in, relative imports resolved from there.
 */
export function asProjectModule(code: string, from?: string): string {
  const resolved = from === undefined ? code : code.replace(
    /(from\s+|import\s*\(\s*|import\s+)"(\.{1,2}\/[^"]+)"/g,
    (_, lead, spec) => `${lead}${JSON.stringify(pathToFileURL(path.join(from, spec)).href)}`,
  );
  return resolved
    .replaceAll('"@linewise/linewise/core"', JSON.stringify(`${PROJECT}/src/core/mod.ts`))
    .replaceAll('"@linewise/linewise"', JSON.stringify(`${PROJECT}/mod.ts`)) + "\nexport {};\n";
}
