import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, it } from "node:test";
import { globalExcludes } from "../../src/disk/_outer_ignores.ts";

describe("globalExcludes(), git's global excludes file as ripgrep finds it", () => {
  /** A home holding these files; each case gets its own. */
  function homeWith(files: Record<string, string>): string {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "linewise-home-"));
    for (const [file, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(home, file)), { recursive: true });
      fs.writeFileSync(path.join(home, file), text);
    }
    return home;
  }

  it("reads the default file, under XDG_CONFIG_HOME when it is set", () => {
    const home = homeWith({ ".config/git/ignore": "*.swp\n", "xdg/git/ignore": "*.tmp\n" });
    try {
      assert.equal(globalExcludes({ HOME: home }), "*.swp\n");
      assert.equal(globalExcludes({ HOME: home, XDG_CONFIG_HOME: `${home}/xdg` }), "*.tmp\n");
      assert.equal(globalExcludes({ HOME: `${home}/none` }), undefined);
    } finally {
      fs.rmSync(home, { recursive: true });
    }
  });

  it("takes core.excludesFile from ~/.gitconfig first, then git/config, ~ and quotes read as git reads them", () => {
    const home = homeWith({
      ".config/git/ignore": "default\n",
      ".config/git/config": "[core]\n\texcludesFile = ~/from-xdg\n",
      "from-xdg": "xdg\n",
      "my ignore": "home\n",
    });
    try {
      assert.equal(globalExcludes({ HOME: home }), "xdg\n");
      fs.writeFileSync(path.join(home, ".gitconfig"), '[core]\n  ExcludesFile = "~/my ignore"\n');
      assert.equal(globalExcludes({ HOME: home }), "home\n");
      // A file named that is not there: no global file (the default is not looked for).
      fs.writeFileSync(path.join(home, ".gitconfig"), "[core]\nexcludesfile = ~/missing\n");
      assert.equal(globalExcludes({ HOME: home }), undefined);
    } finally {
      fs.rmSync(home, { recursive: true });
    }
  });
});
