/**
 * What the tree said on real sites (issue 23), on the add-on's port: the page layer runs in the
 * content script here, which sees the page's DOM through Xray wrappers and none of the listeners
 * the page's own scripts add (the runner's preloaded sandbox sees those), so the fixture the
 * page package's real-sites test reads on the runner's port is read again through the add-on.
 * Also the add-on's half of `done` after a save that shows a fresh "add another" form: its
 * probe_completion must count no changed field there (blockedDone then lets done through; the
 * runner's real-site-endings test runs the whole agent on that fixture).
 */
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { evaluate, navigate } from "@webbrain/bidi";
import { type FixtureServer, findRef, refIn } from "@webbrain/testkit";
import { describe, expect, it } from "vitest";
import { type PortProbe, useProbedAddon } from "./port-probe.js";

type Result = Record<string, unknown> & { success: boolean; error?: string };

const PAGE = "/page/wired/real-sites.html";

let fixtures: FixtureServer;
let probe: PortProbe;

const require = createRequire(import.meta.url);

const firefox = useProbedAddon(
  (probed) => {
    ({ fixtures, probe } = probed);
  },
  async () => {
    // The fixture wires its dialog with jQuery, served from node_modules as the page tests do.
    const jquery = await readFile(require.resolve("jquery/dist/jquery.min.js"), "utf8");
    return {
      "/vendor/jquery.js": (_req, res) => {
        res.writeHead(200, { "content-type": "text/javascript; charset=utf-8" });
        res.end(jquery);
      },
    };
  },
);

function pageAction(tab: string, action: string, params: Record<string, unknown> = {}): Promise<Result> {
  return probe.call<Result>("pageAction", tab, action, params);
}

/** The fixture open in a new tab: its Firefox context, the port's tab id and the tree's lines. */
async function open(path: string, query = "") {
  const context = await firefox.newTab();
  const url = fixtures.url(`${path}${query}`);
  await navigate(firefox.client, context, url);
  const tab = await probe.tabIdOf(url);
  const read = await pageAction(tab, "get_accessibility_tree");
  expect(read.success, JSON.stringify(read)).toBe(true);
  const tree = String(read.tree);
  return { context, tab, tree, lines: tree.split("\n").map((line) => line.trim()) };
}

const lastAction = (context: string) =>
  evaluate<string>(firefox.client, context, "document.getElementById('last').textContent");

describe("the tree on real-site shapes, through the add-on", () => {
  it("names leave out hidden text; bare checkboxes are named by their row or item, never their colour", async () => {
    const { tree, lines } = await open(PAGE, "?case=names");
    expect(tree).not.toContain("HIDDEN");
    for (const expected of ['button "Save"', 'button "Send"', 'button "Open"', 'link "Read more"'])
      expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^\\[\\d+\\] ${expected}$`)));
    expect(tree).not.toMatch(/checkbox "white/);
    for (const name of ["Ada Lovelace", "Alan Turing", "Milk", "Eggs"]) {
      expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^\\[\\d+\\] checkbox "${name}"$`)));
      expect(tree.split(name).length - 1).toBe(1);
    }
  });

  it("collapsed only for a real disclosure, each radio once, no refs for icons in a control", async () => {
    const { context, tab, tree, lines } = await open(PAGE, "?case=states");
    expect(lines).toContainEqual(expect.stringMatching(/^\[\d+\] button "Refresh"$/));
    expect(lines).toContainEqual(expect.stringMatching(/^\[\d+\] button "Section 1" collapsed$/));
    for (const name of ["Alpha A", "Beta B", "Gamma C", "Delta D", "Epsilon E", "Phi F"]) {
      const named = lines.filter((line) => line.includes(`"${name}"`));
      expect(named, tree).toEqual([expect.stringMatching(new RegExp(`^\\[\\d+\\] radio "${name}"$`))]);
    }
    expect(tree).not.toContain('class="icon"');
    expect(tree).not.toContain("#cc0000");
    expect(lines).toContainEqual(expect.stringMatching(/^\[\d+\] button "Bold"$/));
    const clicked = await pageAction(tab, "click_ax", { ref_id: findRef(tree, "radio", "Delta D") });
    expect(clicked.success, JSON.stringify(clicked)).toBe(true);
    expect(await evaluate(firefox.client, context, "document.querySelector('input[name=d]').checked")).toBe(
      true,
    );
  });

  it("a listening panel is not one clickable; its controls keep their refs", async () => {
    const { context, tab, tree, lines } = await open(PAGE, "?case=panel");
    expect(tree).not.toMatch(/clickable "Shipping/);
    const ship = refIn(lines.find((line) => /^\[\d+\] button "Ship it"$/.test(line)) ?? "");
    expect((await pageAction(tab, "click_ax", { ref_id: ship })).success).toBe(true);
    expect(await lastAction(context)).toBe("panel ship");
  });

  it("a draggable dialog: title once on the dialog's line, Close once, resize handles by edge", async () => {
    const { context, tab, tree, lines } = await open(PAGE, "?case=dialog");
    expect(tree.split("Edit record").length - 1).toBe(1);
    expect(tree).toMatch(/^dialog "Edit record"$/m);
    const close = lines.filter((line) => line.includes("Close"));
    expect(close).toEqual([expect.stringMatching(/^\[\d+\] button "Close"$/)]);
    expect(tree).not.toContain("ui-resizable");
    expect(lines).toContainEqual(expect.stringMatching(/^\[\d+\] clickable "resize bottom-right corner"$/));
    const c = await pageAction(tab, "click_ax", { ref_id: refIn(close[0] ?? "") });
    // The title bar's jQuery mousedown (a drag start) did not take the click.
    expect(c.success, JSON.stringify(c)).toBe(true);
    expect(await lastAction(context)).toBe("closed");
  });
});

describe("done after a save, the add-on's probe", () => {
  it("counts no changed field on the fresh 'add another' form, and counts one typed into it", async () => {
    const { tab, tree } = await open("/runner/add-another.html");
    for (const [name, value] of [
      ["Name", "Ada"],
      ["Email", "ada@example.com"],
    ] as const) {
      const typed = await pageAction(tab, "type_ax", { ref_id: findRef(tree, "textbox", name), value });
      expect(typed.success, JSON.stringify(typed)).toBe(true);
    }
    const saved = await pageAction(tab, "click_ax", { ref_id: findRef(tree, "button", "Save contact") });
    expect(saved.success, JSON.stringify(saved)).toBe(true);
    const read = await pageAction(tab, "read_page");
    expect(String(read.text)).toContain("Ada <ada@example.com>");
    const fresh = await pageAction(tab, "probe_completion");
    expect(fresh.forms, JSON.stringify(fresh)).toEqual([expect.objectContaining({ changed: 0 })]);
    const again = String((await pageAction(tab, "get_accessibility_tree")).tree);
    await pageAction(tab, "type_ax", { ref_id: findRef(again, "textbox", "Email"), value: "not-an-email" });
    const started = await pageAction(tab, "probe_completion");
    expect(started.forms, JSON.stringify(started)).toEqual([expect.objectContaining({ changed: 1 })]);
  });
});
