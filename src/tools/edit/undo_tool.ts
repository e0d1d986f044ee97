// The undo tool: takes back this session's last edits of a file, while the file is still as
// the last of them left it.
import { countLines, InputError, quotePath, splitBom } from "../../core/mod.ts";
import { changedRegions, versionOf } from "../../versions/mod.ts";
import { checkArgs } from "../_args.ts";
import { editReport, withVersion } from "./_edit_report.ts";
import { Refusal } from "../_results.ts";
import { UNDO_STEPS } from "../_session.ts";
import { type EditContext, EDITING } from "./edit_tools.ts";
import type { JsonSchema, ToolDefinition } from "../tool.ts";

const schema: JsonSchema = {
  type: "object",
  properties: {
    path: { type: "string" },
    steps: { type: "integer", minimum: 1, maximum: UNDO_STEPS, default: 1 },
    version: { type: "string" },
  },
  required: ["path"],
};

/** The undo tool. */
export function undoTool({ store, settings, session }: EditContext): ToolDefinition {
  return {
    name: "undo",
    title: "Undo edits",
    description:
      "Takes back this session's last edits of a file, while it is as the last one left it.",
    inputSchema: schema,
    standalone: {
      description:
        "Takes back a file's last edits made here, while it is as the last one left it (version: as that edit answered).",
      inputSchema: { ...schema, required: ["path", "version"] },
    },
    outputSchema: {
      type: "object",
      properties: {
        path: { type: "string" },
        steps: { type: "integer" },
        version: { type: "string" },
        total_lines: { type: "integer" },
      },
      required: ["path", "steps", "version"],
    },
    annotations: EDITING,
    async call(args, context) {
      const a = checkArgs<{ path: string; steps: number; version?: string }>(schema, args);
      // (A request that stands alone names the state it undoes: the version the edit answered.)
      if (context?.standalone && a.version === undefined) {
        throw new InputError(
          "a request of MCP 2026-07-28 stands alone: pass version, the file's version as the last edit answered it, to say which edits to undo",
        );
      }
      const done = await store.update(a.path, (text, display) => {
        if (a.version !== undefined && versionOf(text) !== a.version.toLowerCase()) {
          throw new Refusal(
            `${quotePath(display)}: the file's version is ${
              versionOf(text)
            }, not ${a.version}; nothing was undone`,
          );
        }
        const restored = undone(session.edits(display), a.steps, text, quotePath(display));
        return { text: restored, value: { text, display, restored } };
      }, { maxBytes: settings.maxEditBytes, signal: context?.signal });
      session.undone(done.display, a.steps);
      const version = session.showed(done.display, done.restored)!;
      const path = quotePath(done.display);
      const regions = changedRegions(done.text, done.restored);
      const delta = countLines(splitBom(done.restored).body) - countLines(splitBom(done.text).body);
      const report = editReport(
        path,
        done.text,
        {
          text: done.restored,
          regions,
          lineDelta: delta,
        },
        false,
        settings,
        `undid ${a.steps} ${a.steps === 1 ? "edit" : "edits"} of ${path}`,
      );
      return withVersion({
        ...report,
        structuredContent: {
          path,
          steps: a.steps,
          total_lines: report.structuredContent?.total_lines,
        },
      }, version);
    },
  };
}

/** The text `steps` edits back, or why it cannot be restored. */
function undone(
  edits: ReadonlyArray<{ before: string; after: string }>,
  steps: number,
  text: string,
  path: string,
): string {
  if (edits.length === 0) {
    throw new InputError("this session has made no edit of this file that can be undone");
  }
  if (steps > edits.length) {
    throw new InputError(
      `steps ${steps} is more than the ${edits.length} ${
        edits.length === 1 ? "edit" : "edits"
      } of this file this session can undo`,
    );
  }
  if (text !== edits.at(-1)!.after) {
    throw new Refusal(
      `${path}: the file changed since this session's last edit of it, so undo would lose that change; nothing was written. Read it and edit it back instead`,
    );
  }
  for (let i = edits.length - 1; i > edits.length - steps; i--) {
    if (edits[i].before !== edits[i - 1].after) {
      throw new Refusal(
        `${path}: the file changed between this session's edits of it, so undo can go back ${
          edits.length - i
        } ${edits.length - i === 1 ? "step" : "steps"} at most; nothing was written`,
      );
    }
  }
  return edits[edits.length - steps].before;
}
