// The patch tool: a unified diff over several files, all or nothing. Every file is checked
// before any is written; when a write fails, the files already written are put back.
import { parsePatch, type StructuredPatch } from "diff";
import { InputError, quotePath } from "../../core/mod.ts";
import { FileChangedError, NotFoundError } from "../../store/errors.ts";
import { checkArgs } from "../_args.ts";
import { applyHunks, createdText, deletes } from "./_hunks.ts";
import { ok, Refusal } from "../_results.ts";
import { type EditContext, EDITING } from "./edit_tools.ts";
import type { JsonSchema, ToolDefinition, ToolResult } from "../tool.ts";

const schema: JsonSchema = {
  type: "object",
  properties: {
    patch: { type: "string" },
    dry_run: { type: "boolean", default: false },
  },
  required: ["patch"],
};

/** One file of a patch, checked: what it holds now and what it will hold. */
interface Planned {
  path: string;
  kind: "modify" | "create" | "delete";
  /** The text now (undefined for a file to create). */
  before?: string;
  /** The text after (undefined for a file to delete). */
  after?: string;
  notes: string[];
  hunks: number;
  delta: number;
  /** The mode git's header gives it, when it makes the file or changes its mode. */
  mode?: GitMode;
}

/** The modes of a file of text in git: a file, and an executable one. */
type GitMode = "100644" | "100755";

/** The patch tool. */
export function patchTool(context: EditContext): ToolDefinition {
  return {
    name: "patch",
    title: "Apply a patch",
    description:
      "Applies a unified diff (git diff, diff -u; new and deleted files too), all or nothing: each hunk must match at its line numbers with its context, or at its one exact match elsewhere.",
    inputSchema: schema,
    outputSchema: {
      type: "object",
      properties: {
        files: {
          type: "array",
          items: {
            type: "object",
            properties: {
              path: { type: "string" },
              action: { type: "string", enum: ["modified", "created", "deleted"] },
              hunks: { type: "integer" },
              line_delta: { type: "integer" },
              mode: { type: "string", enum: ["100644", "100755"] },
              version: { type: "string" },
            },
            required: ["path", "action"],
          },
        },
        written: { type: "boolean" },
      },
      required: ["files", "written"],
    },
    annotations: EDITING,
    async call(args, call) {
      const a = checkArgs<{ patch: string; dry_run: boolean }>(schema, args);
      const planned = await plan(context, filesOf(a.patch));
      if (a.dry_run) return report(planned, false, []);
      const versions = await apply(context, planned, call?.signal);
      return report(planned, true, versions);
    },
  };
}

/** The files of a patch, parsed; a patch with none, or one the tool cannot apply, is refused. */
function filesOf(patch: string): StructuredPatch[] {
  let files: StructuredPatch[];
  // (A diff saved with CRLF line endings of its own: each line's last `\r` is the diff's.)
  const savedWithCrlf = patch.includes("\r\n") && !/(?:^|[^\r])\n/.test(patch);
  try {
    files = parsePatch(savedWithCrlf ? patch.replaceAll("\r\n", "\n") : patch);
  } catch (error) {
    throw new InputError(`patch cannot be parsed: ${(error as Error).message}`);
  }
  // (jsdiff reads past a binary patch as if it had no hunk: a file would be made empty.)
  if (/^(?:GIT binary patch|Binary files .* differ)$/m.test(patch)) {
    throw new InputError("patch holds a binary patch; it applies changes of text only");
  }
  files = files.filter((f) =>
    f.hunks.length > 0 || f.isCreate || f.isDelete || f.isRename ||
    (f.newMode !== undefined && f.newMode !== f.oldMode)
  );
  if (files.length === 0) {
    throw new InputError(
      "patch holds no file to change: give a unified diff with --- and +++ lines and @@ hunks",
    );
  }
  for (const file of files) {
    if (file.isRename || file.isCopy) {
      throw new InputError(
        `patch renames or copies ${file.oldFileName}; it applies changes of content only`,
      );
    }
  }
  return files;
}

/**
 * The mode a section gives its file: a new file's, or a changed one's (git's `new file mode`,
 * `old mode` and `new mode`); undefined where it leaves the mode as it is. A symlink, a
 * submodule or any other kind of entry is refused: the patch applies files of text.
 */
function modeOf(file: StructuredPatch, path: string): GitMode | undefined {
  const mode = file.newMode;
  if (mode === undefined || file.isDelete || (!file.isCreate && mode === file.oldMode)) {
    return undefined;
  }
  for (const given of [file.oldMode, mode]) {
    if (given === undefined || given === "100644" || given === "100755") continue;
    const what = given === "120000"
      ? "a symlink"
      : given === "160000"
      ? "a submodule"
      : `mode ${given}`;
    throw new InputError(
      `patch makes ${quotePath(path)} ${what}; it applies files of text (modes 100644 and 100755)`,
    );
  }
  return mode as GitMode;
}

/**
 * The path a patch names, without git's a/ and b/ prefixes (taken off when the other side

 * has the other prefix, or is /dev/null); undefined for a side that is no file: /dev/null,
 * git's side of a new or deleted file, or a side dated at the epoch (how `diff -N` writes
 * a file that is absent, as GNU patch reads it).
 */
function pathOf(file: StructuredPatch, side: "old" | "new"): string | undefined {
  const [name, other, header, absent] = side === "old"
    ? [file.oldFileName, file.newFileName, file.oldHeader, file.isCreate]
    : [file.newFileName, file.oldFileName, file.newHeader, file.isDelete];
  if (name === undefined || name === "/dev/null" || absent === true) return undefined;
  if (header !== undefined && atEpoch(header)) return undefined;
  const [mine, theirs] = side === "old" ? ["a/", "b/"] : ["b/", "a/"];
  const prefixed = name.startsWith(mine) &&
    (other === "/dev/null" || other?.startsWith(theirs) || file.isGit);
  return prefixed ? name.slice(2) : name;
}

/**
 * Whether a header's date is the epoch itself, in its time zone (`1970-01-01 00:00:00 +0000`,
 * `1969-12-31 19:00:00.000000000 -0500`): a file dated a second after it is a file.
 */
function atEpoch(header: string): boolean {
  const date = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d)(?:\.(\d+))? ([+-]\d\d)(\d\d)$/.exec(header);
  if (date === null || /[1-9]/.test(date[3] ?? "")) return false;
  return Date.parse(`${date[1]}T${date[2]}${date[4]}:${date[5]}`) === 0;
}

/**
 * The path a section names as the store shows it, or as written for a file not there, and
 * whether it is there.
 */
async function namedFile(
  store: EditContext["store"],
  path: string,
): Promise<{ name: string; exists: boolean }> {
  try {
    return { name: (await store.stat(path)).path, exists: true };
  } catch (error) {
    if (error instanceof NotFoundError) return { name: path, exists: false };
    throw error;
  }
}

/** Checks every file of the patch against the store, computing each new text. */
async function plan(context: EditContext, files: StructuredPatch[]): Promise<Planned[]> {
  const { store, settings } = context;
  const planned: Planned[] = [];
  // (A patch of diffs run one after another may change one file in several sections: each
  // applies to what the ones before made, as git apply and GNU patch read it.)
  const byName = new Map<string, Planned>();
  for (const file of files) {
    const from = pathOf(file, "old");
    const to = pathOf(file, "new");
    if (from === undefined && to === undefined) throw new InputError("patch names no file");
    const mode = modeOf(file, (to ?? from)!);
    // (By the file named, however the section spells it: `a/x` in one, `./x` in another.)
    const { name, exists } = await namedFile(store, (from ?? to)!);
    const keep = (entry: Planned) => {
      planned.push(entry);
      byName.set(name, entry);
    };
    const earlier = byName.get(name);
    if (earlier !== undefined) {
      if (from === undefined || to !== from || earlier.after === undefined) {
        throw new InputError(
          `patch creates or deletes ${
            quotePath((from ?? to)!)
          } in one section and changes it in another; give one diff of it`,
        );
      }
      const patched = hunksApplied(earlier.after, file, earlier.path);
      earlier.after = patched.text;
      earlier.notes.push(...patched.notes);
      earlier.hunks += file.hunks.length;
      earlier.delta += patched.delta;
      earlier.mode = mode ?? earlier.mode;
      continue;
    }
    if (from === undefined) {
      if (exists) {
        throw new Refusal(
          `${quotePath(to!)}: the patch creates it, but it exists; nothing was written`,
        );
      }
      const after = createdText(file.hunks);
      keep({
        path: to!,
        kind: "create",
        after,
        notes: [],
        hunks: file.hunks.length,
        delta: 0,
        mode,
      });
      continue;
    }
    const current = await store.readText(from, { maxBytes: settings.maxEditBytes });
    const path = current.path;
    if (current.invalidUtf8) {
      throw new Refusal(
        `${quotePath(path)}: not valid UTF-8, so the patch cannot apply; nothing was written`,
      );
    }
    if (to === undefined) {
      if (!deletes(current.text, file.hunks)) {
        throw new Refusal(
          `${
            quotePath(path)
          }: the patch deletes it, but its lines are not the ones the patch removes; nothing was written`,
        );
      }
      keep({
        path,
        kind: "delete",
        before: current.text,
        notes: [],
        hunks: file.hunks.length,
        delta: 0,
      });
      continue;
    }
    const patched = hunksApplied(current.text, file, path);
    keep({
      path,
      kind: "modify",
      before: current.text,
      after: patched.text,
      notes: patched.notes,
      hunks: file.hunks.length,
      delta: patched.delta,
      mode,
    });
  }
  return planned;
}

/** A section's hunks applied to a file's text: none, for a section that changes its mode alone. */
function hunksApplied(text: string, file: StructuredPatch, path: string) {
  if (file.hunks.length === 0) return { text, notes: [], delta: 0 };
  return applyHunks(text, file.hunks, quotePath(path));
}

/**
 * Writes the planned files in order; when one fails, puts back those written before it and
 * refuses, saying what happened.
 *
 * @returns the new version of each file (undefined for a deleted one)
 */
async function apply(
  context: EditContext,
  planned: Planned[],
  signal: AbortSignal | undefined,
): Promise<Array<string | undefined>> {
  const { store, session, settings } = context;
  const written: Planned[] = [];
  for (const file of planned) {
    try {
      const executable = file.mode === undefined ? undefined : file.mode === "100755";
      if (file.kind === "create") await store.write(file.path, file.after!, { signal, executable });
      else if (file.kind === "delete") {
        const maxBytes = settings.maxEditBytes;
        await store.delete(file.path, { signal, expected: file.before, maxBytes })
          .catch(changedAs(file.path));
      } else {
        await replaceText(context, file.path, file.before!, file.after!, { signal, executable });
      }
      written.push(file);
    } catch (error) {
      const failed = await putBack(context, written);
      const reason = error instanceof Error ? error.message : String(error);
      const restored = written.filter((f) => !failed.has(f.path)).map((f) => quotePath(f.path));
      const back = [
        ...failed.values(),
        ...restored.length === 0 ? [] : [
          `the ${failed.size > 0 ? "other " : ""}files written before it were put back (${
            restored.join(", ")
          })`,
        ],
      ].map((part) => `; ${part}`).join("");
      throw new Refusal(`patch stopped at ${quotePath(file.path)}: ${reason}${back}`);
    }
  }
  return planned.map((file) =>
    file.kind === "delete"
      ? undefined
      : file.before === undefined
      ? session.showed(file.path, file.after)
      : session.edited(file.path, file.before, file.after!)
  );
}

/**
 * Writes `after` over a file while its text is still `before` (checked under its lock), with
 * the execute bits asked for.
 */
async function replaceText(
  { store, settings }: EditContext,
  path: string,
  before: string,
  after: string,
  options: { signal?: AbortSignal; executable?: boolean } = {},
): Promise<void> {
  await store.update(path, (text) => {
    if (text !== before) throw new ChangedMeanwhile(path);
    return { text: after, value: undefined };
  }, { maxBytes: settings.maxEditBytes, ...options });
}

/** The refusal of a file that changed while the patch was applied. */
class ChangedMeanwhile extends Refusal {
  constructor(path: string) {
    super(`${quotePath(path)} changed while the patch was applied`);
  }
}

/** A file found changed under its lock is said as the patch says it. */
function changedAs(path: string): (error: unknown) => never {
  return (error) => {
    throw error instanceof FileChangedError ? new ChangedMeanwhile(path) : error;
  };
}

/**
 * Restores written files, last first, each only while it is still as the patch left it: a
 * file another writer changed since keeps that change. Returns, by path, why those that were
 * not put back were not.
 */
async function putBack(context: EditContext, written: Planned[]): Promise<Map<string, string>> {
  const { store, settings: { maxEditBytes: maxBytes } } = context;
  const failed = new Map<string, string>();
  for (const file of [...written].reverse()) {
    const path = quotePath(file.path);
    try {
      if (file.kind === "create") await store.delete(file.path, { expected: file.after, maxBytes });
      else if (file.kind === "delete") await store.write(file.path, file.before!);
      else {
        // (A mode it changed goes back too: git's header said what it was.)
        const executable = file.mode === undefined ? undefined : file.mode !== "100755";
        await replaceText(context, file.path, file.after!, file.before!, { executable });
      }
    } catch (error) {
      // (A file it created that is gone already is as it was before the patch.)
      if (file.kind === "create" && error instanceof NotFoundError) continue;
      const changed = error instanceof FileChangedError || error instanceof ChangedMeanwhile ||
        error instanceof NotFoundError;
      failed.set(
        file.path,
        changed
          ? `${path} changed after the patch wrote it, so it was not put back (it keeps that change)`
          : `${path} could not be put back (${error instanceof Error ? error.message : error})`,
      );
    }
  }
  return failed;
}

function report(
  planned: Planned[],
  written: boolean,
  versions: Array<string | undefined>,
): ToolResult {
  const action = { modify: "modified", create: "created", delete: "deleted" } as const;
  let text = "";
  const files = planned.map((file, i) => {
    const version = versions[i];
    const lines = [
      file.kind === "modify" && (file.hunks > 0 || file.mode === undefined)
        ? `${file.hunks} ${file.hunks === 1 ? "hunk" : "hunks"}, lines ${signed(file.delta)}`
        : "",
      // (A new file of a file's usual mode is said as before.)
      file.mode === undefined || (file.kind === "create" && file.mode === "100644")
        ? ""
        : `mode ${file.mode}`,
    ].filter((part) => part !== "").join(", ");
    text += `${written ? action[file.kind] : `would be ${action[file.kind]}`} ${
      quotePath(file.path)
    }${lines ? ` (${lines})` : ""}${version ? ` @${version}` : ""}\n`;
    for (const note of file.notes) text += `[${note}]\n`;
    return {
      path: quotePath(file.path),
      action: action[file.kind],
      ...(file.kind === "modify" ? { hunks: file.hunks, line_delta: file.delta } : {}),
      ...(file.mode === undefined ? {} : { mode: file.mode }),
      ...(version ? { version } : {}),
    };
  });
  if (!written) text += "[dry run: every hunk applies; nothing was written]\n";
  return ok(text, { files, written });
}

function signed(n: number): string {
  return n >= 0 ? `+${n}` : `${n}`;
}
