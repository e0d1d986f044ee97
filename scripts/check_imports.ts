// Checks the layout of src/ (part of `deno task check`): each folder imports only the folders
// its rule allows, no files import one another in a cycle (of any length), node:fs and Bun's
// and Deno's own modules appear only where they belong, the search threads' folders import no
// built-in module slow to load, and only io/runtime.ts asks which runtime this is.
//
//   deno run --allow-read scripts/check_imports.ts [SRC]    exit 1 and a list when broken
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import process from "node:process";

/**
 * What each folder below src/ may import besides itself and `node:*` (see docs/architecture.md).
 * core is pure text; io knows the file system and the runtime; store is the contract; files,
 * search and disk build the directory store on them; tools, mcp and cli are the products.
 */
export const ALLOWED: Record<string, readonly string[]> = {
  core: [],
  io: ["core"],
  match: ["core", "io"],
  store: ["core", "match"],
  versions: ["core"],
  files: ["core", "io", "store"],
  search: ["core", "io", "match", "files", "store"],
  disk: ["core", "io", "match", "files", "search", "store"],
  tools: ["core", "match", "store", "versions", "tools/edit", "tools/read"],
  "tools/edit": ["core", "io", "match", "store", "versions", "tools"],
  "tools/read": ["core", "match", "store", "versions", "tools"],
  mcp: ["core", "tools"],
  testing: ["core", "store"],
  cli: [
    "core",
    "io",
    "match",
    "files",
    "search",
    "disk",
    "store",
    "tools",
    "tools/edit",
    "tools/read",
    "mcp",
    "versions",
    "version.ts",
  ],
};

/**
 * The store's contract: all of store/ that the tools may know (with how to read a result's
 * rows without making an object of each).
 */
const STORE_CONTRACT = ["store/file_store.ts", "store/errors.ts", "store/flat_rows.ts"];
/** What tools/ shares with the tools in its subfolders (it composes them in create_tools.ts). */
const TOOLS_SHARED = [
  "tools/tool.ts",
  "tools/options.ts",
  "tools/_args.ts",
  "tools/_results.ts",
  "tools/_session.ts",
];

/** Modules of other folders that a folder may import only these files of. */
const ONLY: Record<string, Record<string, readonly string[]>> = {
  tools: { store: STORE_CONTRACT },
  // (io: to start the worker that computes an edit of a large file, tools/edit/_edit_thread.ts.)
  "tools/edit": { io: ["io/runtime.ts"], store: STORE_CONTRACT, tools: TOOLS_SHARED },
  "tools/read": { store: STORE_CONTRACT, tools: TOOLS_SHARED },
  mcp: { tools: ["tools/tool.ts"] },
};

/**
 * Folders that may use node:fs and the runtimes' own modules and APIs (`bun:*`, `Bun.*`,
 * `Deno.*`).
 */
const SYSTEM = new Set(["io", "files", "search", "disk", "cli"]);
const systemFolders = [...SYSTEM].join(", ");
/**
 * Folders whose modules the search threads load: a built-in module slow to load is not
 * imported there but loaded when first used (`builtin` in io/runtime.ts), or a thread's every
 * start waits for it.
 */
const THREADS = new Set(["core", "io", "match", "files", "search", "store", "disk"]);
/** Built-in modules that took a thread 0.6-1.6 ms each to load (the compiled binary, 2 cores). */
const SLOW_BUILTIN = /^(?:node:)?(?:crypto|zlib|readline)$/;
/** The one module that may ask which runtime this is (everything else asks it). */
const RUNTIME_MODULE = "io/runtime.ts";

const IMPORT = /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[^"';]*?\sfrom\s+)?["']([^"']+)["']/g;
const DYNAMIC = /\bimport\(\s*["']([^"']+)["']\s*\)/g;
/** `require("fs")` and `process.getBuiltinModule("node:fs")` load a module too. */
const LOADED = /\b(?:require|getBuiltinModule)\s*(?:\?\.)?\(\s*["']([^"']+)["']\s*\)/g;
/** node:fs, also by its bare name, which every runtime resolves to the same module. */
const NODE_FS = /^(?:node:)?fs(?:\/promises)?$/;

/** The global object, also as a cast: `(globalThis as any)`, `(globalThis as { Bun?: … })`. */
const GLOBAL = String.raw`(?:(?:globalThis|self|window|global)\b|\(\s*globalThis\s+as\b[^;]*?\))`;
const NAME = String.raw`(?:Bun|Deno)`;
const QUOTED = String.raw`["'\`]${NAME}["'\`]`;
/** The ways a module can tell the runtime from its globals. */
const RUNTIME_CHECKS = [
  String.raw`${QUOTED}\s+in\b`, // "Bun" in globalThis
  String.raw`${GLOBAL}\s*\??\.\s*${NAME}\b`, // globalThis.Deno, (globalThis as any).Bun
  String.raw`${GLOBAL}\s*(?:\?\.)?\[\s*${QUOTED}\s*\]`, // globalThis["Deno"]
  String.raw`\b(?:has|hasOwn|hasOwnProperty)\s*\(\s*(?:[^,()]+,\s*)?${QUOTED}`, // Reflect.has(…)
  String.raw`\btypeof\s+(?:Bun|Deno|Worker|SharedArrayBuffer)\b`,
  String.raw`\bprocess\.versions\s*\??\.\s*(?:bun|deno)\b`,
  String.raw`\bprocess\.versions\s*(?:\?\.)?\[\s*["'\`](?:bun|deno)["'\`]`,
  String.raw`\bnavigator\s*\??\.\s*userAgent\b`,
];
const RUNTIME_CHECK = new RegExp(RUNTIME_CHECKS.join("|"));

/** The source without comments (doc examples hold imports that are not the module's). */
function code(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1");
}

/**
 * The folder whose rule holds for a file: the deepest folder with a rule of its own
 * (`tools/edit`), else the top folder below src/ (`search/index/` is part of `search`).
 */
function folderOf(name: string): string {
  const dirs = name.split("/").slice(0, -1);
  for (let depth = dirs.length; depth > 1; depth--) {
    const folder = dirs.slice(0, depth).join("/");
    if (Object.hasOwn(ALLOWED, folder)) return folder;
  }
  return dirs[0] ?? name;
}

function tsFiles(dir: string): string[] {
  const entries = readdirSync(dir, { withFileTypes: true });
  entries.sort((a, b) => a.name < b.name ? -1 : 1);
  return entries.flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return tsFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/**
 * The breaks of the rules in a source tree.
 *
 * @param src the source folder
 * @returns one line per break, empty when the layout holds
 */
export function checkImports(src: string): string[] {
  const root = resolve(src);
  const problems: string[] = [];
  const imports = new Map<string, Set<string>>();
  for (const file of tsFiles(root)) {
    const name = relative(root, file);
    const folder = folderOf(name);
    const top = name.split("/")[0];
    const text = code(readFileSync(file, "utf8"));
    const targets = new Set<string>();
    imports.set(name, targets);
    const specifiers = [IMPORT, DYNAMIC, LOADED].flatMap((pattern) =>
      [...text.matchAll(pattern)].map((m) => m[1])
    );
    for (const [statement, specifier] of text.matchAll(IMPORT)) {
      if (
        SLOW_BUILTIN.test(specifier) && THREADS.has(top) &&
        !/(?:import|export)\s+type\s/.test(statement)
      ) {
        problems.push(
          `${name}: imports ${specifier}, which every search thread would load as it starts; ` +
            `load it when first used (builtin in src/io/runtime.ts)`,
        );
      }
    }
    for (const specifier of specifiers) {
      if (NODE_FS.test(specifier) && !SYSTEM.has(top)) {
        problems.push(`${name}: imports ${specifier}, which only ${systemFolders} may use`);
      }
      if (specifier.startsWith("bun:") && !SYSTEM.has(top)) {
        problems.push(`${name}: imports ${specifier}, which only ${systemFolders} may use`);
      }
      if (!specifier.startsWith(".")) continue;
      const target = relative(root, resolve(dirname(file), specifier));
      targets.add(target);
      const to = folderOf(target);
      if (to === folder || target.startsWith("..")) continue;
      const allowed = ALLOWED[folder];
      if (allowed === undefined) {
        problems.push(`${name}: its folder ${folder}/ has no rule in scripts/check_imports.ts`);
      } else if (!allowed.includes(to)) {
        const may = allowed.length > 0 ? allowed.join(", ") : "node:*";
        problems.push(`${name}: imports ${target}, but ${folder}/ may import only ${may}`);
      } else if (ONLY[folder]?.[to] && !ONLY[folder][to].includes(target)) {
        const only = ONLY[folder][to].join(", ");
        problems.push(`${name}: imports ${target}; of ${to}/ it may import only ${only}`);
      }
    }
    if (name !== RUNTIME_MODULE && RUNTIME_CHECK.test(text)) {
      problems.push(`${name}: checks which runtime this is; ask src/io/runtime.ts instead`);
    }
    if (!SYSTEM.has(top) && /\bDeno\.[a-zA-Z]/.test(text)) {
      problems.push(`${name}: uses Deno's own API, which only ${systemFolders} may use`);
    }
    if (!SYSTEM.has(top) && /\bBun\.[a-zA-Z]/.test(text)) {
      problems.push(`${name}: uses Bun's own API, which only ${systemFolders} may use`);
    }
  }
  for (const cycle of importCycles(imports)) problems.push(describeCycle(cycle, imports));
  return problems;
}

/**
 * The import cycles of a graph: its strongly connected components of more than one file, or
 * of one file that imports itself (Tarjan's algorithm).
 *
 * @param imports each file's imports (files outside the graph are left out)
 * @returns each cycle's files in path order, the cycles in the order of their first file
 */
export function importCycles(imports: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (file: string) => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const target of imports.get(file)!) {
      if (!imports.has(target)) continue;
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || imports.get(file)!.has(file)) cycles.push(component.sort());
  };
  for (const file of imports.keys()) if (!index.has(file)) visit(file);
  return cycles.sort((a, b) => a[0] < b[0] ? -1 : 1);
}

/** A cycle as a problem: the files, and the shortest way round from the first of them. */
function describeCycle(cycle: string[], imports: Map<string, Set<string>>): string {
  const [first] = cycle;
  if (cycle.length === 1) return `${first} imports itself`;
  if (cycle.length === 2) return `${cycle[0]} and ${cycle[1]} import each other`;
  // Breadth first from the first file, within the cycle, back to it.
  const members = new Set(cycle);
  const cameFrom = new Map<string, string>();
  const queue = [first];
  for (let at = 0; at < queue.length && !cameFrom.has(first); at++) {
    for (const target of imports.get(queue[at])!) {
      if (!members.has(target) || cameFrom.has(target)) continue;
      cameFrom.set(target, queue[at]);
      queue.push(target);
    }
  }
  const way = [first];
  for (let file = cameFrom.get(first)!; file !== first; file = cameFrom.get(file)!) {
    way.unshift(file);
  }
  way.unshift(first);
  const files = `${cycle.slice(0, -1).join(", ")} and ${cycle.at(-1)}`;
  return `${files} form an import cycle (one way round: ${way.join(" → ")})`;
}

if (import.meta.main) {
  const src = process.argv[2] ?? "src";
  const problems = checkImports(src);
  for (const problem of problems) console.error(problem);
  if (problems.length > 0) {
    console.error(`check_imports: ${problems.length} breaks of the layout rules in ${src}/`);
    process.exit(1);
  }
  console.error(`check_imports: ${src}/ keeps its layout rules`);
}
