/**
 * Controls wired by script and states shown only by styling, on the runner's port (the page
 * script preloaded in the BiDi sandbox): jQuery direct and delegated handlers, icon-only
 * controls, a calendar, an autocomplete menu, a custom tree, custom checkboxes. Each ref is
 * clicked with trusted input to prove it names the control the page reacts to.
 */
import { lineOf, refIn } from "@webbrain/testkit";
import { describe, expect, it } from "vitest";
import { clickRef } from "./page-session.js";
import { lastAction, useWiredFixtures } from "./wired-session.js";

const { open } = useWiredFixtures();

describe("script-wired controls (runner port)", () => {
  it("gives jQuery direct and delegated handlers their own refs, and clicks land on them", async () => {
    const page = await open("/page/wired/jquery.html");
    const tree = await page.tree();
    const replies = tree
      .split("\n")
      .filter((l) => /\[\d+\] clickable (?:"[^"]*" )?class="icon email-reply"/.test(l));
    const trash = tree.split("\n").filter((l) => /\[\d+\] clickable (?:"[^"]*" )?class="icon trash"/.test(l));
    expect(replies).toHaveLength(2); // direct .on("click")
    expect(trash).toHaveLength(2); // delegated .on("click", ".trash")
    expect(tree).toMatch(/\[\d+\] clickable (?:"[^"]*" )?class="icon email-forward"/); // .click(fn)
    expect(tree).toMatch(/\[\d+\] clickable "Grace"/); // delegated on the document (mousedown)
    await clickRef(page, refIn(trash[1] ?? ""));
    expect(await lastAction(page)).toBe("trash 2");
    await clickRef(page, refIn(replies[0] ?? ""));
    expect(await lastAction(page)).toBe("reply 1");
  });

  it("gives each autocomplete item its own ref and text", async () => {
    const page = await open("/page/wired/jquery.html");
    const city = refIn(lineOf(await page.tree(), /textbox "City"/));
    const typed = await page.runResolved(
      await page.call("type_ax", { ref_id: city, value: "Pa", mode: "resolve" }),
    );
    expect(typed.success, JSON.stringify(typed)).toBe(true);
    const tree = await page.tree();
    const items = ["Paris", "Parma", "Pasadena"].map((name) =>
      lineOf(tree, new RegExp(`\\[\\d+\\] \\w+ "${name}"$`)),
    );
    for (const item of items) expect(item).not.toBe("");
    expect(new Set(items.map(refIn)).size).toBe(3);
    expect(tree).not.toContain("ParisParma");
    await clickRef(page, refIn(items[1] ?? ""));
    expect(await lastAction(page)).toBe("picked Parma");
  });

  it("prints a jQuery UI menu's items once: the delegated, pointer-styled <li> around each menuitem is no control", async () => {
    const page = await open("/page/wired/jquery-ui.html");
    const tree = await page.tree();
    const lines = tree.split("\n").filter((l) => /\[\d+\]/.test(l));
    expect(lines.filter((l) => l.includes('"Xaviera"'))).toHaveLength(1);
    expect(lines.filter((l) => l.includes('"Lindsay"'))).toHaveLength(1);
    expect(lines.filter((l) => /clickable "(Xaviera|Lindsay)/.test(l))).toEqual([]);
    const opener = refIn(lineOf(tree, /menuitem "Xaviera"/));
    const hovered = await page.runResolved(await page.call("hover", { ref_id: opener, mode: "resolve" }));
    expect(hovered.success, JSON.stringify(hovered)).toBe(true);
    const opened = await page.tree();
    expect(opened.split("\n").filter((l) => l.includes('"Melinde"'))).toHaveLength(1);
    await clickRef(page, refIn(lineOf(opened, /menuitem "Melinde"/)));
    expect(await lastAction(page)).toBe("picked Melinde");
  });

  it("does not call a tab panel followed by its hidden sibling panels collapsed", async () => {
    const page = await open("/page/wired/jquery-ui.html");
    const tree = await page.tree();
    const panel = lineOf(tree, /tabpanel "Tab #1"/);
    expect(panel).toMatch(/^\s*\[\d+\] tabpanel "Tab #1"$/);
    expect(tree).not.toContain('Tab #2" collapsed');
    await clickRef(page, refIn(lineOf(tree, /clickable "porta"/)));
    expect(await lastAction(page)).toBe("link porta");
  });

  it("says a read-only field is readonly, and type_ax into it answers not_editable", async () => {
    const page = await open("/page/wired/jquery-ui.html");
    const line = lineOf(await page.tree(), /textbox "Date:"/);
    expect(line).toMatch(/^\[\d+\] textbox "Date:" readonly$/);
    const typed = await page.call("type_ax", { ref_id: refIn(line), value: "12/24/2016", mode: "resolve" });
    expect(typed.code).toBe("not_editable");
  });

  it("scrolls an item clipped by its scrolling list into view before clicking it", async () => {
    const page = await open("/page/wired/jquery-ui.html");
    const item = refIn(lineOf(await page.tree(), /clickable "6ft 2in"/));
    // in the viewport, but below the list's 60px box: its ancestor answers at its centre
    expect(
      await page.page<boolean>(
        "(() => { const li = [...document.querySelectorAll('.items li')].at(-1); const r = li.getBoundingClientRect(); return document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2) !== li; })()",
      ),
    ).toBe(true);
    await clickRef(page, item);
    expect(await lastAction(page)).toBe("picked 6ft 2in");
  });

  it("finds icon-only tools, handler properties, and vanilla delegation told by closest()", async () => {
    const page = await open("/page/wired/widgets.html");
    const tree = await page.tree();
    expect(tree).toMatch(/\[\d+\] clickable "Archive"/); // addEventListener, named by title
    const star = lineOf(tree, /\[\d+\] clickable "light grey #cccccc" class="tool star"/); // a grey chip (the text beside is not its name), and its class
    expect(star).not.toBe("");
    expect(tree).toMatch(/\[\d+\] clickable "Refresh"/); // el.onclick = fn
    const next = lineOf(tree, /\[\d+\] clickable ">"/); // document listener: closest(".nav")
    await clickRef(page, refIn(next));
    expect(await page.page<string>("document.getElementById('month').textContent")).toBe("April 2024");
    await clickRef(page, refIn(star));
    expect(await lastAction(page)).toBe("tool tool star");
  });

  it("shows a calendar's picked day, tabs' current one, custom checkboxes and disabled looks", async () => {
    const page = await open("/page/wired/widgets.html");
    let tree = await page.tree();
    expect(tree).toMatch(/\[\d+\] clickable "3" selected/);
    expect(tree).toMatch(/\[\d+\] clickable "2"$/m);
    expect(tree).toMatch(/\[\d+\] clickable "Day" selected/);
    expect(tree).toMatch(/\[\d+\] clickable "Week"$/m);
    expect(tree).toMatch(/\[\d+\] clickable "Month" disabled/);
    expect(tree).toMatch(/\[\d+\] checkbox "Accept terms" checked/); // label over a hidden input
    const box = lineOf(tree, /\[\d+\] checkbox( "[^"]*")? checked/);
    expect(box).not.toBe("");
    await clickRef(page, refIn(lineOf(tree, /clickable "2"$/m)));
    tree = await page.tree();
    expect(tree).toMatch(/\[\d+\] clickable "2" selected/);
    expect(tree).toMatch(/\[\d+\] clickable "3"$/m);
  });

  it("infers a custom tree's collapsed and expanded folders, and the state follows a click", async () => {
    const page = await open("/page/wired/widgets.html");
    let tree = await page.tree();
    const documents = lineOf(tree, /clickable "Documents"/);
    expect(documents).toMatch(/collapsed$/);
    expect(tree).toMatch(/clickable "Pictures" expanded/);
    expect(tree).not.toContain("report.txt"); // hidden children are not printed...
    expect(tree).toMatch(/clickable "cat\.png"/);
    await clickRef(page, refIn(documents));
    tree = await page.tree();
    expect(tree).toMatch(/clickable "Documents" expanded/);
    expect(tree).toMatch(/clickable "report\.txt"/); // ...until the folder is opened
  });

  it("is invisible to the page: addEventListener still reads as native, no global is added", async () => {
    const page = await open("/page/wired/widgets.html");
    expect(await page.page<string>("String(EventTarget.prototype.addEventListener)")).toContain(
      "[native code]",
    );
    expect(await page.page<string>("typeof window.__webbrainListeners")).toBe("undefined");
    expect(await page.page<string>("EventTarget.prototype.addEventListener.name")).toBe("addEventListener");
  });
});
