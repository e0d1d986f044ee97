// Reading a pattern for what makes a backtracking engine slow: repeated groups that
// themselves repeat (exponential), and runs of unbounded quantifiers (polynomial).

/**
 * Why a pattern risks catastrophic backtracking, or undefined when it does not: a
 * repeated group that itself contains repetition or alternation (`(a+)+`, `(a|aa)*`), or
 * a backreference inside repetition. Simple patterns (`foo.*bar`, `\w+\(`) pass.
 */
export function backtrackingRisk(pattern: string): string | undefined {
  // Per open group: whether it contains a quantifier or an alternation.
  const stack: Array<{ repeats: boolean; alternates: boolean }> = [];
  let inClass = false;
  for (let at = 0; at < pattern.length; at++) {
    const char = pattern[at];
    if (char === "\\") {
      if (/[1-9k]/.test(pattern[at + 1] ?? "") && stack.length > 0) {
        stack[stack.length - 1].repeats = true;
      }
      at++;
      continue;
    }
    if (inClass) {
      if (char === "]") inClass = false;
      continue;
    }
    if (char === "[") inClass = true;
    else if (char === "(") stack.push({ repeats: false, alternates: false });
    else if (char === "|" && stack.length > 0) stack[stack.length - 1].alternates = true;
    else if (char === ")") {
      const group = stack.pop();
      const quantified = repeatsGroup(pattern, at + 1);
      if (group && quantified && group.repeats) return "repeats a group that itself repeats";
      if (group && quantified && group.alternates) return "repeats a group of alternatives";
      if (group && stack.length > 0 && (group.repeats || quantified)) {
        stack[stack.length - 1].repeats = true;
      }
    } else if (isUnboundedQuantifier(pattern, at) && stack.length > 0) {
      stack[stack.length - 1].repeats = true;
    }
  }
  return undefined;
}

/** Whether a `*`, `+` or `{n,}`/`{n,m}` (m > 1) quantifier starts at `at`. */
function isUnboundedQuantifier(pattern: string, at: number): boolean {
  const char = pattern[at];
  if (char === "*" || char === "+") return true;
  if (char !== "{") return false;
  const bounds = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(at));
  if (!bounds || bounds[2] === undefined) return false;
  return bounds[3] === "" || Number(bounds[3]) > 1;
}

/**
 * Whether a quantifier that repeats a group more than once starts at `at`: an unbounded one
 * or a fixed count `{n}` with n > 1. `(a+){10}$` backtracks as badly as `(a+)+$` (it tries
 * every way to cut a run of a's into ten pieces), while `a{2}` inside a group is harmless.
 */
function repeatsGroup(pattern: string, at: number): boolean {
  const count = /^\{(\d+)\}/.exec(pattern.slice(at, at + 12));
  return isUnboundedQuantifier(pattern, at) || (count !== null && Number(count[1]) > 1);
}

/**
 * How many unbounded quantifiers (`*`, `+`, `{n,}`, `{n,m}` with m > 16) a pattern holds
 * outside character classes. A backtracking engine can take about length^(count + 1) steps
 * on one line that does not match, so this bounds the line length it may be given.
 */
export function unboundedQuantifiers(pattern: string): number {
  let count = 0;
  let inClass = false;
  for (let at = 0; at < pattern.length; at++) {
    const char = pattern[at];
    if (char === "\\") at++;
    else if (inClass) inClass = char !== "]";
    else if (char === "[") inClass = true;
    else if (char === "*" || char === "+") count++;
    else if (char === "{") {
      const bounds = /^\{(\d+),(\d*)\}/.exec(pattern.slice(at, at + 24));
      if (bounds && (bounds[2] === "" || Number(bounds[2]) > 16)) count++;
    }
  }
  return count;
}
