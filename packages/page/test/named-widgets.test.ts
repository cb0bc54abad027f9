/**
 * Widgets named by what a person sees of them, on the runner's port (the page script preloaded
 * in the BiDi sandbox): colour chips, images without alt, the items of a script-wired list,
 * date/time fields and the value form they take, values cut in the page's tree and whole in a
 * tree scoped to their field, a slider's thumb, a spinner's aria-hidden arrows, resize handles (by edge),
 * an icon-only toolbar button, and controls that do not borrow the text beside them.
 */
import { lineOf, refIn } from "@webbrain/testkit";
import { describe, expect, it } from "vitest";
import { clickRef } from "./page-session.js";
import { lastAction, useWiredFixtures } from "./wired-session.js";

const { open } = useWiredFixtures();
const PAGE = "/page/wired/named-widgets.html";

describe("widgets named by what they show (runner port)", () => {
  it("names a colour-only chip by its colour, says a swatch in prose, and leaves a glyph's box unnamed", async () => {
    const page = await open(PAGE);
    const tree = await page.tree();
    expect(tree).toContain("Click on the (colour lime #00ff00) colored box.");
    const red = lineOf(tree, /\[\d+\] clickable "red #ff0000" class="chip"$/);
    expect(red).not.toBe("");
    expect(tree).toMatch(/\[\d+\] clickable "light red #[0-9a-f]{6}" class="chip"$/m);
    expect(tree).toMatch(/\[\d+\] clickable "blue #1a2bcc" class="chip"$/m);
    // The star is drawn by ::before: its grey box is not what it shows.
    expect(tree).toMatch(/\[\d+\] clickable class="chip glyph"$/m);
    // The instruction beside the chips is nobody's name.
    expect(tree).not.toMatch(/clickable "Click on the/);
    await clickRef(page, refIn(red));
    expect(await lastAction(page)).toBe("chip red");
  });

  it("says an image's file name when it has no alt, and its alt when it has one", async () => {
    const page = await open(PAGE);
    const tree = await page.tree();
    expect(tree).toMatch(/^\s*img src="ch_2\.png"$/m);
    expect(tree).toMatch(/^\s*img "Done"$/m);
  });

  it("gives each item of a script-wired list its own ref and text", async () => {
    const page = await open(PAGE);
    const tree = await page.tree();
    expect(tree).toMatch(/\[\d+\] list$/m);
    const items = ["Alpha", "Beta", "Gamma"].map((name) =>
      lineOf(tree, new RegExp(`\\[\\d+\\] listitem "${name}"$`)),
    );
    for (const item of items) expect(item).not.toBe("");
    expect(new Set(items.map(refIn)).size).toBe(3);
    await clickRef(page, refIn(items[1] ?? ""));
    expect(await lastAction(page)).toBe("grab Beta");
  });

  it("prints a date or time field's type and value form, sets it in that form and refuses another", async () => {
    const page = await open(PAGE);
    const tree = await page.tree();
    const day = lineOf(tree, /\[\d+\] textbox type=date format=YYYY-MM-DD$/);
    const at = lineOf(tree, /\[\d+\] textbox type=time format=HH:MM$/);
    expect(day).not.toBe("");
    expect(at).not.toBe("");
    // Set in the page on the runner's path too (no plan of keys to press): the locale's display
    // order cannot mislead it.
    const typed = await page.call("type_ax", { ref_id: refIn(day), value: "2017-10-20", mode: "resolve" });
    expect(typed.success, JSON.stringify(typed)).toBe(true);
    expect(typed.runner?.plan).toBeUndefined();
    expect(await page.page<string>("document.getElementById('day').value")).toBe("2017-10-20");
    expect(await page.tree()).toMatch(/textbox value="2017-10-20" type=date format=YYYY-MM-DD/);
    const wrong = await page.call("type_ax", { ref_id: refIn(at), value: "7:55 PM", mode: "resolve" });
    expect(wrong.success).toBe(false);
    expect(wrong.code).toBe("bad_params");
    expect(wrong.error).toContain("HH:MM");
    const time = await page.call("type_ax", { ref_id: refIn(at), value: "19:55" });
    expect(time.success, JSON.stringify(time)).toBe(true);
    expect(await page.page<string>("document.getElementById('at').value")).toBe("19:55");
  });

  it("cuts a long value in the page's tree and prints it whole in a tree scoped to its field", async () => {
    const page = await open(PAGE);
    const line = lineOf(await page.tree(), /\[\d+\] textbox value="Lorem/);
    expect(line).toMatch(/…"$/);
    const scoped = await page.tree({ ref_id: refIn(line) });
    expect(scoped).toContain('magna aliqua lastword"');
  });

  it("leaves an unlabelled field unnamed rather than naming it after the instruction above it", async () => {
    const page = await open(PAGE);
    const tree = await page.tree();
    expect(tree).not.toMatch(/textbox "Focus into the textbox\."/);
    const bare = await page.call("refs_of", { selector: "#bare" });
    const ref = (bare.refs as Array<number | null>)[0];
    expect(tree).toMatch(new RegExp(`\\[${ref}\\] textbox$`, "m"));
  });

  it("shows a slider thumb's position, a spinner's arrows, resize handles and an icon-only toolbar button", async () => {
    const page = await open(PAGE);
    const tree = await page.tree();
    expect(tree).toMatch(/\[\d+\] slider position=40% class="ui-slider-handle"$/m);
    const up = lineOf(tree, /\[\d+\] button class="ui-spinner-button ui-spinner-up"$/);
    expect(tree).toMatch(/\[\d+\] button class="ui-spinner-button ui-spinner-down"$/m);
    // Resize handles are named by the edge a person drags, not by their class (issue 23).
    const south = lineOf(tree, /\[\d+\] clickable "resize bottom edge"$/);
    expect(tree).toMatch(/\[\d+\] clickable "resize right edge"$/m);
    expect(tree).not.toContain("ui-resizable");
    expect(tree).toMatch(/\[\d+\] button class="ql-bold"$/m);
    await clickRef(page, refIn(up));
    expect(await page.page<string>("document.getElementById('spin').value")).toBe("1");
    await clickRef(page, refIn(south));
    expect(await lastAction(page)).toBe("resize ui-resizable-handle ui-resizable-s");
  });
});
