/**
 * The command line's help text.
 *
 * @module
 */

/** The text `linewise --help` prints. */
export const USAGE = `linewise: file tools for AI agents that agree on what a line is.

Usage:
  linewise serve [DIR]... [--deny GLOB]... [--read-only]   MCP server on stdio (roots: DIR or --root)
  linewise read FILE [START[:END]]        numbered lines START to END (START alone: to the end)
  linewise grep PATTERN [PATH]... [-e PATTERN]... [-f FILE]... [-i|-s|-S] [-F] [-P] [-w|-x]
                [-v] [-l|--files-without-match] [-c|--count-matches] [-o] [-q] [-m N] [-A N]
                [-B N] [-C N] [-g GLOB]... [-t TYPE]... [-T TYPE]... [--max-depth N]
                [--max-filesize N] [--hidden|-.] [--no-ignore] [-u] [--no-ignore-dot]
                [--no-ignore-global] [--heading|--no-heading] [--color WHEN] [-n|-N] [-H|-I]
                [--column|--vimgrep] [-0] [--no-messages] [--line-buffered|--block-buffered]
                [--sort path] [--max-matches N] [--timeout SECONDS]  as ripgrep: path:line:text
                                          (PATH - or a pipe without PATH: standard input)
  linewise grep --files [PATH]... [-g GLOB]... [-t TYPE]... [-T TYPE]... [--max-depth N]
                                          the files it would search
  linewise grep --type-list               ripgrep 13's file types, for -t and -T
  linewise glob PATTERN [PATH] [--include-ignored]
  linewise list [PATH] [--depth N] [--include-ignored]
  linewise call TOOL 'JSON-ARGS'          any tool, e.g. call replace_lines '{"path":"a.ts","edits":[...]}'
  linewise --help | --version

Options (anywhere on the line):
  --root DIR            a root the tools may use (repeatable; default: the current directory)
  --deny GLOB           make matching paths invisible (.gitignore syntax; repeatable)
  --read-only           leave out the write tools
  --force               let call replace_lines or insert_lines edit by number unchecked
                        (without them it needs "version", as read prints it, or "expected_text")
  --json                print the structured result instead of the text
  --max-lines N         rows per result (default 2000)
  --max-chars N         characters per result (default 60000, at least 1000)
  --max-edit-bytes N    largest file the edit tools load (default 67108864)
  --timeout SECONDS     how long one grep may run (default 10; grep's own: none)
  -j, --threads N       threads a grep reads files with (default: one per core, at most 8)
  --no-cache            serve: neither load nor save the search index in ~/.cache/linewise

Lines are numbered from 1 and end at \\n (a \\r before it belongs to the terminator), as in
grep -n, sed -n and git. Exit status: 0 success, 1 tool error, 2 usage error; for grep, as for
grep and ripgrep: 0 something matched, 1 nothing did, 2 an error (or a search stopped before it
could tell). grep has no budgets unless --max-matches or --timeout is given.
`;
