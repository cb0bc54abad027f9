// The agent must run unchanged in a Firefox background page and in Node: its sources may not
// import node: modules or touch the DOM or the WebExtension API.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const SRC = join(import.meta.dirname, "..", "src");

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sources(join(dir, entry.name))
      : entry.name.endsWith(".ts")
        ? [join(dir, entry.name)]
        : [],
  );
}

/** Source without comments and string contents, so prose like "no DOM" does not count. */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/.*$/gm, "");
}

const FORBIDDEN: [string, RegExp][] = [
  ["node: import", /from\s+["']node:|import\(\s*["']node:|require\(\s*["']node:/],
  ["window", /\bwindow\s*\./],
  ["document", /\bdocument\s*\.(?!title)/],
  ["browser.*", /\bbrowser\s*\.\s*(tabs|runtime|storage|downloads|scripting|windows)\b/],
  ["chrome.*", /\bchrome\s*\.\s*(tabs|runtime|storage)\b/],
  ["process", /\bprocess\s*\.\s*(env|argv|exit)\b/],
];

describe("agent sources are browser-free and Node-free", () => {
  const files = sources(SRC);
  it("finds the sources", () => {
    expect(files.length).toBeGreaterThan(10);
  });
  for (const file of files) {
    it(file.slice(SRC.length + 1), () => {
      const text = code(readFileSync(file, "utf8"));
      for (const [what, pattern] of FORBIDDEN) expect(pattern.test(text), `${what} in ${file}`).toBe(false);
    });
  }
  it("the checker itself catches each forbidden use", () => {
    const samples = [
      'import x from "node:fs";',
      "window.foo = 1;",
      "document.body;",
      "browser.tabs.query({});",
      "process.env.X",
    ];
    for (const sample of samples)
      expect(FORBIDDEN.some(([, pattern]) => pattern.test(code(sample)))).toBe(true);
  });
});
