// The pure part of an edit, the core's replaceTexts, replaceLines or insertLines on a file's
// text, as a message that can cross to another thread (_edit_thread.ts), with its answer:
// the result, or the error it threw, rebuilt on the other side as the same class with the
// same fields, so that a caller's mistake is still told apart from a bug.
// (From the core's own files, not its mod.ts, which would load the matchers into the worker.)
import {
  type EditResult,
  ExpectedTextMismatchError,
  OldTextMatchError,
} from "../../core/edit_result.ts";
import { InputError, LineRangeError } from "../../core/input_errors.ts";
import { insertLines } from "../../core/insert_lines.ts";
import { type LineEdit, replaceLines } from "../../core/replace_lines.ts";
import { replaceTexts, type TextEdit } from "../../core/replace_text.ts";
import { versionOf } from "../../versions/versions.ts";

/** An edit, keeping its result's first `keep` regions. */
export type EditSpec =
  & { exact: boolean; keep: number }
  & (
    | { kind: "replace"; edits: TextEdit[] }
    | { kind: "lines"; edits: LineEdit[] }
    | { kind: "insert"; after: number; insert: string; expected?: string }
  );

/** An edit to compute from `text`, the file's whole text. */
export type EditJob = EditSpec & { text: string };

/**
 * An edit as it is posted to a worker: with the file's bytes, moved to the worker whole,
 * instead of its text (posting a string of 48 MB held the thread that posted it 0.3-0.6 s
 * under Bun), and the text's length, to check that they are its bytes.
 */
export type PostedJob = EditSpec & { bytes: Uint8Array; length: number };

/**
 * An edit's result with only its first regions (as many as the job asks to keep), and how
 * many there are in all: a tool shows the first few, and a million regions as objects took
 * the two threads 2 s to copy and the one that answers 0.2-1 s to make again.
 */
export interface ComputedEdit extends EditResult {
  /** All the changed regions, of which `regions` holds the first. */
  regionsTotal: number;
  /** The new text's version, when it was computed with the edit (on a worker). */
  version?: string;
}

/** What computing an {@linkcode EditJob} gave. */
export type EditAnswer = { result: ComputedEdit } | { error: ThrownError };

/** An error as a message: its class (when it is one of the core's refusals) and fields. */
export interface ThrownError {
  refusal?: keyof typeof REFUSALS;
  message: string;
  stack?: string;
  fields: Record<string, unknown>;
}

/** The core's refusals of an edit's input; any other error is a bug. */
const REFUSALS = { InputError, LineRangeError, OldTextMatchError, ExpectedTextMismatchError };

/**
 * Computes an edit.
 *
 * @param job the edit and the text
 * @returns the core's result
 * @throws what the core throws
 */
export function runEditJob(job: EditJob): EditResult {
  const options = { exact: job.exact };
  switch (job.kind) {
    case "replace":
      return replaceTexts(job.text, job.edits, options);
    case "lines":
      return replaceLines(job.text, job.edits, options);
    case "insert":
      return insertLines(job.text, job.after, job.insert, { ...options, expected: job.expected });
  }
}

/**
 * Computes an edit and answers with its result or what it threw.
 *
 * @param job the edit and the text
 * @returns the answer, which can be posted to another thread
 */
export function answerEditJob(job: EditJob): EditAnswer {
  try {
    return { result: kept(runEditJob(job), job.keep) };
  } catch (error) {
    return { error: thrownError(error) };
  }
}

/**
 * The result with its first `keep` regions.
 *
 * @param result the core's result
 * @param keep how many regions to keep
 * @returns the result with `regionsTotal`
 */
export function kept(result: EditResult, keep: number): ComputedEdit {
  const regionsTotal = result.regions.length;
  return { ...result, regions: result.regions.slice(0, keep), regionsTotal };
}

/** Decodes a posted job's bytes as the store does: valid UTF-8 (it checked), the BOM kept. */
const decoder = new TextDecoder("utf-8", { ignoreBOM: true });

/**
 * Computes a posted edit, with the new text's version (work taken off the thread that
 * answers requests).
 *
 * @param posted the edit and the file's bytes
 * @returns the answer
 */
export function answerPostedJob({ bytes, length, ...job }: PostedJob): EditAnswer {
  const text = decoder.decode(bytes);
  if (text.length !== length) {
    const error = new Error(`the edit's bytes decode to ${text.length} units, not ${length}`);
    return { error: thrownError(error) };
  }
  const answer = answerEditJob({ ...job, text });
  if ("result" in answer) answer.result.version = versionOf(answer.result.text);
  return answer;
}

function thrownError(error: unknown): ThrownError {
  if (!(error instanceof Error)) return { message: String(error), fields: {} };
  const refusal = (Object.keys(REFUSALS) as Array<keyof typeof REFUSALS>)
    .find((name) => error.constructor === REFUSALS[name]);
  const fields = refusal === undefined ? {} : { ...error };
  return { refusal, message: error.message, stack: error.stack, fields };
}

/**
 * The error an answer carries, as the class that threw it: a refusal of the core keeps its
 * class and fields (`lines`, `ranges`); anything else is a plain `Error`, a bug.
 *
 * @param thrown the error as a message
 * @returns the error to throw
 */
export function rebuiltError(thrown: ThrownError): Error {
  const error: Error = thrown.refusal === undefined
    ? new Error(thrown.message)
    : Object.create(REFUSALS[thrown.refusal].prototype);
  Object.assign(error, thrown.fields);
  Object.defineProperty(error, "message", { value: thrown.message, writable: true });
  if (thrown.stack !== undefined) {
    Object.defineProperty(error, "stack", { value: thrown.stack, writable: true });
  }
  return error;
}
