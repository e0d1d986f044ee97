// Checks the layout of src/ (part of `deno task check`): each folder imports only the folders
// its rule allows, no two files import each other, and node:fs, Bun's and Deno's own modules
// and runtime checks appear only where they belong.
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
  "tools/edit": ["core", "match", "store", "versions", "tools"],
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

/** The store's contract: all of store/ that the tools may know. */
const STORE_CONTRACT = ["store/file_store.ts", "store/errors.ts"];
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
  "tools/edit": { store: STORE_CONTRACT, tools: TOOLS_SHARED },
  "tools/read": { store: STORE_CONTRACT, tools: TOOLS_SHARED },
  mcp: { tools: ["tools/tool.ts"] },
};

/** Folders that may use node:fs and the runtimes' own modules (`bun:*`, `Deno.*`). */
const SYSTEM = new Set(["io", "files", "search", "disk", "cli"]);
const systemFolders = [...SYSTEM].join(", ");
/** Folders that may ask which runtime this is (everything else asks io/runtime.ts). */
const RUNTIME_CHECKS = new Set(["io"]);

const IMPORT = /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[^"';]*?\sfrom\s+)?["']([^"']+)["']/g;
const DYNAMIC = /\bimport\(\s*["']([^"']+)["']\s*\)/g;
const NODE_FS = /^node:fs(\/promises)?$/;
const RUNTIME_CHECK =
  /["'](?:Bun|Deno)["']\s+in\s+globalThis|globalThis\.(?:Bun|Deno)\b|typeof\s+(?:Bun|Deno|Worker|SharedArrayBuffer)\b|process\.versions\.(?:bun|deno)/;

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
    const specifiers = [...text.matchAll(IMPORT), ...text.matchAll(DYNAMIC)].map((m) => m[1]);
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
    if (!RUNTIME_CHECKS.has(top) && RUNTIME_CHECK.test(text)) {
      problems.push(`${name}: checks which runtime this is; ask src/io/runtime.ts instead`);
    }
    if (!SYSTEM.has(top) && /\bDeno\.[a-zA-Z]/.test(text)) {
      problems.push(`${name}: uses Deno's own API, which only ${systemFolders} may use`);
    }
  }
  for (const [file, targets] of imports) {
    for (const target of targets) {
      if (file < target && imports.get(target)?.has(file)) {
        problems.push(`${file} and ${target} import each other`);
      }
    }
  }
  return problems;
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
