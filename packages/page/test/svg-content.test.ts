/**
 * Inline SVG drawings on the runner's port (the page script preloaded in the BiDi sandbox): the
 * shapes and texts a person sees, in words (kind, colour, text, where), refs on the shapes the
 * page wired for input (a listener, an onclick attribute, a handler property with a pointer
 * cursor), an icon inside a button left as the button's one line, and a many-dot chart capped.
 * Refs are clicked with trusted input to prove they name the shape the page reacts to.
 */
import { lineOf, refIn } from "@webbrain/testkit";
import { describe, expect, it } from "vitest";
import { clickRef, type PageSession } from "./page-session.js";
import { useWiredFixtures } from "./wired-session.js";

const { open } = useWiredFixtures();

/** `at cx,cy WxH` of an element, measured by the page itself. */
async function placeOf(page: PageSession, selector: string): Promise<string> {
  return page.page<string>(
    `(() => { const r = document.querySelector(${JSON.stringify(selector)}).getBoundingClientRect();
      return "at " + Math.round(r.left + r.width / 2) + "," + Math.round(r.top + r.height / 2) + " " +
        Math.round(r.width) + "x" + Math.round(r.height); })()`,
  );
}

describe("inline SVG drawings (runner port)", () => {
  it("says each shape's kind, colour, text and place, with refs on the wired ones", async () => {
    const page = await open("/page/wired/svg.html");
    const tree = await page.tree();
    expect(tree).toMatch(/^svg at 100,\d+ 200x200$/m);
    expect(tree).toContain(`] circle red ${await placeOf(page, "#red")}`);
    expect(tree).toContain(`] rectangle blue ${await placeOf(page, "#blue")}`);
    expect(tree).toMatch(/\[\d+\] triangle green at \d+,\d+ 40x40/);
    expect(tree).toMatch(/^ {2}text "Q" magenta at \d+,\d+ \d+x\d+$/m); // seen, not wired: no ref
    expect(tree).toMatch(/^ {2}line black from 0,\d+ to 200,\d+$/m);
    expect(tree).toMatch(/^ {2}circle "Target" outline black at 150,\d+ 3\dx3\d$/m);
    expect(tree).toMatch(/^ {2}rectangle orange at /m); // fill from a CSS class
    expect(tree.match(/circle red/g)).toHaveLength(1); // the display:none one is absent

    await clickRef(page, refIn(lineOf(tree, /\] circle red/)));
    expect(await page.page<string>("document.getElementById('last').textContent")).toBe("red circle");
    await clickRef(page, refIn(lineOf(tree, /\] triangle green/)));
    expect(await page.page<string>("document.getElementById('last').textContent")).toBe("green triangle");
  });

  it("keeps an icon in a button to the button's line, skips decorative icons, caps a chart", async () => {
    const page = await open("/page/wired/svg.html");
    const tree = await page.tree();
    expect(tree).toMatch(/\[\d+\] button "Save"$/m);
    expect(tree).not.toContain("path");
    expect(tree).toMatch(/^Secure +checkout$/m); // the icon between the words printed nothing
    const chart = tree.split("\n").filter((l) => /^ {2}circle steel|^ {2}circle blue/.test(l));
    expect(chart).toHaveLength(30);
    expect(tree).toContain("… 30 more shapes not shown");
  });

  it("prints only the wired shapes for the interactive filter", async () => {
    const page = await open("/page/wired/svg.html");
    const tree = await page.tree({ filter: "interactive" });
    expect(tree).toMatch(/\[\d+\] circle red/);
    expect(tree).toMatch(/\[\d+\] rectangle blue/);
    expect(tree).not.toContain('text "Q"');
    expect(tree).not.toContain("more shapes");
  });
});
