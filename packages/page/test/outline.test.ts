/**
 * Fewer tokens, no control out of reach: a tree over its budget folds into an outline whose
 * folded parts each print with one more call (ref_id of the fold line); `find` answers matching
 * lines with the part they are in; `diff` answers what changed since the last tree.
 */
import { describe, expect, it } from "vitest";
import { usePageFixtures } from "./page-session.js";

const env = usePageFixtures();
const refsOf = (tree: string): Set<string> =>
  new Set(Array.from(tree.matchAll(/\[(\d+)\] (?!heading|navigation)/g), (m) => m[1] ?? ""));

describe("outline, find and diff", () => {
  /** Opens the page's outline, then every folded part once: answers the refs never reached. */
  async function unreached(
    path: string,
    budget: number,
  ): Promise<{ missing: string[]; folds: number; outline: string }> {
    const page = await env.open(path);
    const allRefs = refsOf(await page.tree());
    const outline = await page.tree({ max_chars: budget });
    expect(outline.length).toBeLessThanOrEqual(budget + 200); // + the closing line
    const folds = outline.split("\n").filter((l) => l.includes("… folded:"));
    for (const fold of folds)
      expect(fold).toMatch(
        /^\s*\[\d+\] (heading|navigation) "[^"]+".* … folded: \d+ controls?( \(to heading "[^"]+" level=\d\))?$/,
      );
    const reached = refsOf(
      outline
        .split("\n")
        .filter((l) => !l.includes("… folded:"))
        .join("\n"),
    );
    for (const fold of folds) {
      const ref = Number(/\[(\d+)\]/.exec(fold)?.[1]);
      const count = Number(/folded: (\d+)/.exec(fold)?.[1]);
      const part = await page.tree({ ref_id: ref, max_chars: budget });
      expect(part).not.toContain("folded:");
      const partRefs = refsOf(part);
      expect(partRefs.size).toBe(count);
      for (const r of partRefs) reached.add(r);
    }
    return { missing: [...allRefs].filter((r) => !reached.has(r)), folds: folds.length, outline };
  }

  it("folds parts that do not fit, and every control is one more call away", async () => {
    const page = await env.open("/page/long-manual.html");
    expect(refsOf(await page.tree()).size).toBe(5 * 8 + 4); // 40 steps, 2 nav links, the field, the button
    const result = await unreached("/page/long-manual.html", 900);
    expect(result.folds).toBeGreaterThan(0);
    expect(result.outline).toMatch(/pass a folded line's ref as ref_id/);
    expect(result.missing).toEqual([]);
  });

  it("folds runs of many small parts into one line each, still one call from every control", async () => {
    const result = await unreached("/page/many-sections.html", 1500);
    expect(result.outline).toMatch(/… folded: \d+ controls \(to heading "Item \d+" level=3\)/);
    expect(result.missing).toEqual([]);
  });

  it("cuts a part with no parts of its own into chunks, each one call away", async () => {
    const page = await env.open("/page/big-toc.html");
    const all = refsOf(await page.tree());
    expect(all.size).toBe(40 * 8 + 2); // 320 links, the field, the button
    const outline = await page.tree({ max_chars: 3000 });
    expect(outline.length).toBeLessThanOrEqual(3000 + 200);
    // The table of contents is one heading's part with no headings inside: it folds as chunks
    // that start at a link, each saying how many controls it holds and where it ends.
    const chunks = outline.split("\n").filter((l) => /^\s*\[\d+\] link ".*" … folded: \d+ controls/.test(l));
    expect(chunks.length).toBeGreaterThan(2);
    const reached = refsOf(
      outline
        .split("\n")
        .filter((l) => !l.includes("… folded:"))
        .join("\n"),
    );
    for (const fold of outline.split("\n").filter((l) => l.includes("… folded:"))) {
      const count = Number(/folded: (\d+)/.exec(fold)?.[1]);
      const part = await page.tree({ ref_id: Number(/\[(\d+)\]/.exec(fold)?.[1]), max_chars: 3000 });
      expect(part).not.toContain("folded:");
      expect(refsOf(part).size).toBe(count);
      for (const r of refsOf(part)) reached.add(r);
    }
    expect([...all].filter((r) => !reached.has(r))).toEqual([]);
    // A later whole-page call forgets the chunks: the first link's ref is that link again.
    const first = Number(/\[(\d+)\]/.exec(chunks[0] ?? "")?.[1]);
    await page.tree({ max_chars: 100_000 });
    expect(await page.tree({ ref_id: first })).toMatch(/^\s*\[\d+\] link "[^"]+"$/);
  });

  it("a chunk that grew since it was folded opens its first lines instead of folding itself again", async () => {
    const page = await env.open("/page/big-toc.html");
    const outline = await page.tree({ max_chars: 3000 });
    const fold = outline.split("\n").find((l) => /^\s*\[\d+\] link ".*" … folded:/.test(l)) ?? "";
    const ref = Number(/\[(\d+)\]/.exec(fold)?.[1]);
    // The page adds 200 links right after the chunk's first link (a script filling a list).
    await page.page(`(() => {
      const li = [...document.querySelectorAll("nav a")].find((a) => a.textContent.startsWith(${JSON.stringify(/link "([^"]+)"/.exec(fold)?.[1] ?? "")}))?.parentElement;
      const list = document.createElement("ul");
      for (let i = 0; i < 200; i++) {
        const item = document.createElement("li");
        item.innerHTML = '<a href="#grown' + i + '">A link the page added later, number ' + i + '</a>';
        list.append(item);
      }
      li.append(list);
    })()`);
    const part = await page.tree({ ref_id: ref, max_chars: 3000 });
    const lines = part.split("\n");
    expect(lines[0]).toMatch(new RegExp(`^\\s*\\[${ref}\\] link "[^"]+"$`));
    expect(part).toContain("A link the page added later, number 0");
    expect(part).toMatch(/folded: \d+ controls/);
  });

  it("prints a heading's section when its ref is the scope", async () => {
    const page = await env.open("/page/long-manual.html");
    const outline = await page.tree({ max_chars: 600 });
    const fold = outline.split("\n").find((l) => l.includes('heading "Deploy"'));
    expect(fold).toBeDefined();
    const part = await page.tree({ ref_id: Number(/\[(\d+)\]/.exec(fold ?? "")?.[1]) });
    expect(part).toMatch(/^\s*heading "Deploy" level=2/);
    expect(part).toContain('link "Deploy step 8"');
    expect(part).not.toContain("Monitor");
  });

  it("finds lines by text, role or both, with the part of the page they are in", async () => {
    const page = await env.open("/page/long-manual.html");
    const found = await page.tree({ find: "step 3" });
    expect(found).toMatch(
      /in main > heading "Service manual" level=1 > heading "Monitor" level=2:\n\s+\[\d+\] link "Monitor step 3"/,
    );
    expect(found.match(/step 3/g)?.length).toBe(5);
    const buttons = await page.tree({ role: "button" });
    expect(buttons).toMatch(/heading "Feedback" level=2:\n\s+\[\d+\] button "Show notes"/);
    expect(buttons).not.toContain("link");
    const both = await page.tree({ find: "rating", role: "textbox" });
    expect(both).toMatch(/\[\d+\] textbox "Rating" value="3"/);
    expect(await page.tree({ find: "no such words" })).toMatch(/^No line of the tree matches/);
  });

  it("answers the changes since the last tree, with refs", async () => {
    const page = await env.open("/page/long-manual.html");
    const before = await page.tree();
    const toggle = Number(/\[(\d+)\] button "Show notes"/.exec(before)?.[1]);
    const click = await page.call("click_ax", { ref_id: toggle });
    expect(click.success).toBe(true);
    await page.page("document.getElementById('rating').value = '5'");
    const diff = await page.tree({ diff: true });
    expect(diff.split("\n").sort()).toEqual(
      [
        `~ [${toggle}] button "Hide notes"`,
        "+ Notes are shown.",
        expect.stringMatching(/^~ \[\d+\] textbox "Rating" value="5"$/),
      ].sort(),
    );
    expect(await page.tree({ diff: true })).toBe("No change since the last tree.");
  });
});
