/**
 * What the tree said on real sites (issue 23), on the runner's port (the page script preloaded
 * in the BiDi sandbox, so listeners the page adds are seen): names that took text their element
 * hides, native checkboxes named by their colour, states and refs a person does not see, and a
 * draggable title bar printed as a "Close" clickable above the real Close button.
 */
import { refIn } from "@webbrain/testkit";
import { describe, expect, it } from "vitest";
import { clickRef } from "./page-session.js";
import { lastAction, useWiredFixtures } from "./wired-session.js";

const { open } = useWiredFixtures();
const PAGE = "/page/wired/real-sites.html";

const lines = (tree: string) => tree.split("\n").map((l) => l.trim());

describe("names take only the text a person sees", () => {
  it("leaves out children hidden by display:none, visibility:hidden, hidden and aria-hidden", async () => {
    const tree = await (await open(PAGE)).tree();
    expect(tree).not.toContain("HIDDEN");
    for (const expected of [
      'button "Save"',
      'button "Send"',
      'button "Open"',
      'button "Print"',
      'link "Read more"',
    ])
      expect(lines(tree)).toContainEqual(expect.stringMatching(new RegExp(`^\\[\\d+\\] ${expected}$`)));
  });

  it("names a bare checkbox by its row or list item, never by its colour, and prints that text once", async () => {
    const tree = await (await open(PAGE)).tree();
    expect(tree).not.toMatch(/checkbox "white/);
    for (const name of ["Ada Lovelace", "Alan Turing", "Milk", "Eggs"]) {
      expect(lines(tree)).toContainEqual(
        expect.stringMatching(new RegExp(`^\\[\\d+\\] checkbox "${name}"$`)),
      );
      expect(tree.split(name).length - 1).toBe(1);
    }
  });
});

describe("states and refs a person sees, once", () => {
  it("says collapsed only for a real disclosure, not for a button beside a hidden note", async () => {
    const tree = await (await open(PAGE)).tree();
    expect(lines(tree)).toContainEqual(expect.stringMatching(/^\[\d+\] button "Refresh"$/));
    expect(lines(tree)).toContainEqual(expect.stringMatching(/^\[\d+\] button "Section 1" collapsed$/));
    expect(lines(tree)).toContainEqual(expect.stringMatching(/^\[\d+\] button "More"$/)); // aria-expanded=false prints nothing new
  });

  it("lists each radio once, as a radio, whatever draws it or listens on its label", async () => {
    const page = await open(PAGE);
    const tree = await page.tree();
    for (const name of ["Alpha A", "Beta B", "Gamma C", "Delta D", "Epsilon E", "Phi F"]) {
      const named = lines(tree).filter((l) => l.includes(`"${name}"`));
      expect(named, tree).toEqual([expect.stringMatching(new RegExp(`^\\[\\d+\\] radio "${name}"$`))]);
    }
    const delta = refIn(lines(tree).find((l) => l.includes('"Delta D"')) ?? "");
    await clickRef(page, delta);
    expect(await page.page("document.querySelector('input[name=d]').checked")).toBe(true);
    expect(lines(await page.tree())).toContainEqual(
      expect.stringMatching(/^\[\d+\] radio "Delta D" checked$/),
    );
  });

  it("gives no refs to icons inside a control or to a wrapper that only holds one", async () => {
    const tree = await (await open(PAGE)).tree();
    expect(tree).not.toContain('class="icon"');
    expect(tree).not.toContain("#cc0000");
    expect(tree).not.toContain("mui-radio");
    expect(lines(tree)).toContainEqual(expect.stringMatching(/^\[\d+\] button "Bold"$/));
  });

  it("does not make a listening panel one clickable named by all its text; its controls keep their refs", async () => {
    const page = await open(PAGE);
    const tree = await page.tree();
    expect(tree).not.toMatch(/clickable "Shipping/);
    expect(tree).toMatch(/\n\s*Choose how your parcel travels\. Delivery takes three to five days\.\n/);
    const ship = refIn(lines(tree).find((l) => /^\[\d+\] button "Ship it"$/.test(l)) ?? "");
    await clickRef(page, ship);
    expect(await lastAction(page)).toBe("panel ship");
  });
});

describe("a draggable dialog (jQuery UI shape)", () => {
  it("prints its title bar as no control and Close once, and names resize handles by their edge", async () => {
    const page = await open(PAGE);
    const tree = await page.tree();
    // Its title is its name (aria-labelledby): printed once, on the dialog's line.
    expect(tree.split("Edit record").length - 1).toBe(1);
    expect(tree).toMatch(/^dialog "Edit record"$/m);
    const close = lines(tree).filter((l) => l.includes("Close"));
    expect(close).toEqual([expect.stringMatching(/^\[\d+\] button "Close"$/)]);
    expect(tree).not.toContain("ui-resizable");
    expect(lines(tree)).toContainEqual(
      expect.stringMatching(/^\[\d+\] clickable "resize bottom-right corner"$/),
    );
    await clickRef(page, refIn(close[0] ?? ""));
    expect(await lastAction(page)).toBe("closed");
  });
});
