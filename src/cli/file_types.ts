/**
 * The file types of `linewise grep -t`, as ripgrep 13 defines them (`rg --type-list`).
 *
 * @module
 */

/** Each type's globs (all match file names). */
export const FILE_TYPES: Readonly<Record<string, readonly string[]>> = {
  c: ["*.[chH]", "*.[chH].in", "*.cats"],
  cpp: [
    "*.[ChH]",
    "*.[ChH].in",
    "*.[ch]pp",
    "*.[ch]pp.in",
    "*.[ch]xx",
    "*.[ch]xx.in",
    "*.cc",
    "*.cc.in",
    "*.hh",
    "*.hh.in",
    "*.inl",
  ],
  csharp: ["*.cs"],
  css: ["*.css", "*.scss"],
  go: ["*.go"],
  html: ["*.ejs", "*.htm", "*.html"],
  java: ["*.java", "*.jsp", "*.jspx", "*.properties"],
  js: ["*.js", "*.jsx", "*.vue"],
  json: ["*.json", "composer.lock"],
  kotlin: ["*.kt", "*.kts"],
  markdown: ["*.markdown", "*.md", "*.mdown", "*.mkdn"],
  md: ["*.markdown", "*.md", "*.mdown", "*.mkdn"],
  php: ["*.php", "*.php3", "*.php4", "*.php5", "*.phtml"],
  py: ["*.py"],
  ruby: ["*.gemspec", "*.rb", "*.rbw", ".irbrc", "Gemfile", "Rakefile", "config.ru"],
  rust: ["*.rs"],
  sh: [
    "*.bash",
    "*.bashrc",
    "*.csh",
    "*.ksh",
    "*.sh",
    "*.tcsh",
    "*.zsh",
    ".bashrc",
    ".profile",
    ".zshrc",
  ],
  swift: ["*.swift"],
  toml: ["*.toml", "Cargo.lock"],
  ts: ["*.ts", "*.tsx"],
  txt: ["*.txt"],
  yaml: ["*.yaml", "*.yml"],
};
