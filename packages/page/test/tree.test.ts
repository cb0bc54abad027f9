/**
 * The accessibility tree in real Firefox: format, names (priority 1-7), values, states, hidden
 * content, filters, budget, scope, overlays, shadow roots, iframes, and the ref rules.
 */
import { isTreeNodeLine, nodeWithRef, placeTreeNodes, type TreeNode } from "@webbrain/protocol";
import { describe, expect, it } from "vitest";
import { usePageFixtures } from "./page-session.js";

const env = usePageFixtures();

const line = (tree: string, fragment: string) => tree.split("\n").find((l) => l.includes(fragment)) ?? "";

describe("tree lines", () => {
  it("prints names by spec 000's priority, values, states and select options", async () => {
    const page = await env.open("/page/tree-basics.html");
    const tree = await page.tree();
    expect(line(tree, '"Full name *"')).toMatch(
      /^\s*\[\d+\] textbox "Full name \*" value="Ada Lovelace" required$/,
    );
    expect(line(tree, '"Email"')).toMatch(/textbox "Email"$/); // wrapping label beats placeholder
    expect(tree).toMatch(/\[\d+\] searchbox "Search people"/); // placeholder
    expect(tree).toMatch(/\[\d+\] button "Save profile"/); // submit value
    expect(tree).toMatch(/\[\d+\] spinbutton "Every" value="1"/); // adjacent text scan
    expect(tree).toMatch(/\[\d+\] button "Delete account" disabled/);
    expect(tree).toMatch(/\[\d+\] checkbox "Send me news" checked/);
    expect(tree).toMatch(/\[\d+\] radio "Pro" checked/);
    expect(tree).toMatch(/\[\d+\] button "Options" expanded/);
    expect(tree).toMatch(/\[\d+\] button "Bold" pressed/);
    expect(tree).toMatch(
      /\[\d+\] combobox "Country" value="Japan"\n\s+option "France"\n\s+option "Japan" selected/,
    );
    // value="..." is cut at 60 characters; passwords never show a value.
    const bio = /value="([^"]*)"/.exec(line(tree, '"Bio"'))?.[1] ?? "";
    expect(bio.length).toBe(60);
    expect(bio.endsWith("…")).toBe(true);
    expect(tree).not.toContain("secret-value");
    // Meaningful text stays in reading order; the radio group's label is printed.
    expect(tree).toMatch(/group "Plan"\n\s+\[\d+\] radio "Free"/);
    expect(tree.indexOf("Change how people see you")).toBeLessThan(tree.indexOf('"Full name *"'));
    expect(tree).toMatch(/heading "Account settings" level=1/);
  });

  it("gives refs to things that only look clickable and to icon-only controls", async () => {
    const page = await env.open("/page/tree-basics.html");
    const tree = await page.tree();
    expect(tree).toMatch(/\[\d+\] clickable "Open the pointer card"/); // cursor: pointer
    expect(tree).toMatch(/\[\d+\] clickable "Clickable span"/); // onclick attribute
    expect(tree).toMatch(/\[\d+\] clickable "Focusable tile"/); // tabindex
    expect(tree).toMatch(/\[\d+\] button "Settings"/); // svg <title>
    expect(tree).toMatch(/\[\d+\] button "Trash"/); // img alt
    expect(tree).toMatch(/\[\d+\] button "Close panel"/); // title attribute
  });

  it("prints a custom combobox's text once, as its value", async () => {
    const page = await env.open("/page/combobox.html");
    const tree = await page.tree();
    const lines = tree.split("\n");
    const at = lines.findIndex((l) => /\[\d+\] combobox "Currency" value="USD"$/.test(l));
    expect(at).toBeGreaterThan(0);
    expect(lines[at + 1]).toMatch(/^\s*\[\d+\] combobox "Billing period"$/); // no "USD" line below it
    expect(tree.match(/USD/g)?.length).toBe(1);
  });

  it("marks controls under aria-disabled=true disabled, in the document and inside shadow roots", async () => {
    const page = await env.open("/page/combobox.html");
    // First only a shadow root holds aria-disabled (the document itself has none).
    await page.page(`(() => {
      const host = document.createElement("div");
      document.body.append(host);
      host.attachShadow({ mode: "open" }).innerHTML =
        '<div aria-disabled="true"><span><button>Shadow locked</button></span></div><button>Shadow free</button>';
    })()`);
    let tree = await page.tree();
    expect(line(tree, '"Shadow locked"')).toMatch(/button "Shadow locked" disabled$/);
    expect(line(tree, '"Shadow free"')).toMatch(/button "Shadow free"$/);
    expect(line(tree, '"Save product"')).toMatch(/button "Save product"$/);
    await page.page(`document.getElementById("product").setAttribute("aria-disabled", "true")`);
    tree = await page.tree();
    expect(line(tree, '"Save product"')).toMatch(/button "Save product" disabled$/);
    expect(line(tree, '"Shadow free"')).toMatch(/button "Shadow free"$/);
  });

  it("builds the tree when an element named like a field is not an HTML one (<input> in MathML)", async () => {
    const page = await env.open("/page/combobox.html");
    // The HTML parser makes this <input> a MathML element: the native HTMLInputElement
    // getters the walk uses throw on it, and the walk must fall back, not fail.
    await page.page(
      `document.body.insertAdjacentHTML("beforeend", "<math><input id=mathml-input><mi>x</mi></input></math>")`,
    );
    expect(await page.page(`document.getElementById("mathml-input").namespaceURI`)).toBe(
      "http://www.w3.org/1998/Math/MathML",
    );
    const result = await page.call("get_accessibility_tree", {});
    expect(result.success).toBe(true);
    expect(result.tree).toMatch(/\[\d+\] button "Save product"/);
  });

  it("skips each kind of hidden element but keeps visible children of visibility:hidden", async () => {
    const page = await env.open("/page/tree-basics.html");
    const tree = await page.tree();
    for (const hidden of ["display", "hidden attribute", "aria-hidden", "zero size", "clip", "visibility"]) {
      expect(tree).not.toContain(`Gone by ${hidden}`);
    }
    expect(tree).not.toContain("Hidden by visibility");
    expect(tree).toContain("but this child shows");
  });
});

describe("filters, budget and scope", () => {
  it("interactive keeps only refs (and group context); visible drops what is below the fold", async () => {
    const page = await env.open("/page/tree-basics.html");
    const all = await page.tree();
    const interactive = await page.tree({ filter: "interactive" });
    const visible = await page.tree({ filter: "visible" });
    expect(interactive).not.toContain("Change how people see you");
    expect(interactive).toMatch(/\[\d+\] link "Back to top"/);
    expect(interactive.length).toBeLessThan(all.length);
    expect(all).toContain("Far below the fold");
    expect(visible).not.toContain("Far below the fold");
    expect(visible).not.toContain("Back to top");
    expect(visible).toContain('"Full name *"');
  });

  it("cuts at the budget with one marker line and reports it", async () => {
    const page = await env.open("/page/tree-basics.html");
    const result = await page.call("get_accessibility_tree", { max_chars: 300 });
    const tree = result.tree as string;
    const metadata = result.metadata as Record<string, unknown>;
    expect(metadata.truncated).toBe(true);
    // The sizes are for code, not the model: in meta.
    expect(metadata).not.toHaveProperty("full_chars");
    const lines = tree.split("\n");
    expect(lines.at(-1)).toMatch(/^… truncated: \d+ more lines \(\d+ chars\) not shown, budget 300 chars/);
    expect(lines.slice(0, -1).join("\n").length).toBeLessThanOrEqual(300);
    expect(result.meta?.full_chars).toBeGreaterThan(300);
  });

  it("scopes to a subtree by ref", async () => {
    const page = await env.open("/page/tree-basics.html");
    const radiogroupRef = await page.ref('radio "Small"');
    const full = await page.tree();
    const formLine = line(full, "Full name");
    expect(formLine).not.toBe("");
    const scoped = await page.tree({ ref_id: radiogroupRef });
    expect(scoped).toContain('radio "Small"');
    expect(scoped).not.toContain("Full name");
  });

  it("rejects a bad filter with a clear error", async () => {
    const page = await env.open("/page/tree-basics.html");
    const result = await page.call("get_accessibility_tree", { filter: "everything" });
    expect(result).toMatchObject({ success: false, code: "bad_params" });
    expect(result.error).toContain("interactive, visible, all");
  });
});

/** A node as the printer writes its line (hints such as class="..." may follow on the line). */
const printedStart = (node: TreeNode) =>
  `${"  ".repeat(node.depth)}${node.ref !== undefined ? `[${node.ref}] ` : ""}${node.role}` +
  `${node.name ? ` ${JSON.stringify(node.name)}` : ""}` +
  `${node.value !== undefined ? ` value=${JSON.stringify(node.value)}` : ""}` +
  `${node.states?.length ? ` ${node.states.join(" ")}` : ""}`;

describe("the tree as data (nodes)", () => {
  it("answers nodes only when asked, and the same text either way", async () => {
    const page = await env.open("/page/tree-basics.html");
    const plain = await page.call("get_accessibility_tree", {});
    const withNodes = await page.call("get_accessibility_tree", { nodes: true });
    expect(plain.meta).not.toHaveProperty("nodes");
    expect(withNodes.tree).toBe(plain.tree);
    // Every ref the walk named is a node, with the same name (the text is not budgeted here).
    const nodes = withNodes.meta?.nodes ?? [];
    const names = Object.fromEntries(
      nodes.flatMap((node) => (node.ref === undefined ? [] : [[String(node.ref), node.name]])),
    );
    expect(names).toEqual(plain.meta?.ref_names);
  });

  it("has a node per control line, with the areas and headings that place it, in printed order", async () => {
    const page = await env.open("/page/tree-basics.html");
    const result = await page.call("get_accessibility_tree", { nodes: true });
    const lines = (result.tree as string).split("\n");
    const nodes = result.meta?.nodes ?? [];
    let from = 0;
    for (const node of nodes) {
      const at = lines.findIndex((text, i) => i >= from && text.startsWith(printedStart(node)));
      expect(at, `no line for ${JSON.stringify(node)} after line ${from}`).toBeGreaterThanOrEqual(from);
      from = at + 1;
    }
    const printedRefs = Array.from((result.tree as string).matchAll(/^\s*\[(\d+)\]/gm), (m) => Number(m[1]));
    expect(nodes.flatMap((node) => (node.ref === undefined ? [] : [node.ref]))).toEqual(printedRefs);
    expect(nodes.find((node) => node.name === "Full name *")).toMatchObject({
      role: "textbox",
      value: "Ada Lovelace",
      states: ["required"],
    });
    expect(nodes.find((node) => node.name === "Account settings")).toMatchObject({
      role: "heading",
      states: ["level=1"],
    });
    expect(nodes.find((node) => node.role === "group" && node.name === "Plan")?.ref).toBeUndefined();
    expect(nodes.every((node) => isTreeNodeLine(node.role, node.ref))).toBe(true);
    const free = nodeWithRef(placeTreeNodes(nodes), nodes.find((node) => node.name === "Free")?.ref);
    expect(free?.within.at(-1)).toEqual({ role: "group", name: "Plan" });
    expect(free?.heading).toBe("Account settings");
  });

  it("under a budget, answers the controls the text shows, placed as in the whole tree", async () => {
    const page = await env.open("/page/tree-basics.html");
    const whole = placeTreeNodes(
      (await page.call("get_accessibility_tree", { nodes: true })).meta?.nodes ?? [],
    );
    const cut = await page.call("get_accessibility_tree", { nodes: true, max_chars: 300 });
    expect((cut.metadata as { truncated: boolean }).truncated).toBe(true);
    expect(cut.tree).not.toContain("Save profile");
    const shown = Array.from((cut.tree as string).matchAll(/^\s*\[(\d+)\]/gm), (m) => Number(m[1]));
    const nodes = placeTreeNodes(cut.meta?.nodes ?? []);
    // A folded part's line shows a ref too, but it is the part's, not a control's.
    const controls = shown.filter((ref) => nodeWithRef(whole, ref) !== undefined);
    expect(controls.length).toBeGreaterThan(0);
    expect(nodes.flatMap((node) => (node.ref === undefined ? [] : [node.ref]))).toEqual(controls);
    for (const ref of controls) expect(nodeWithRef(nodes, ref)).toEqual(nodeWithRef(whole, ref));
    expect(nodes.length).toBeLessThan(whole.length);
  });
});

describe("refs", () => {
  it("keep their number across snapshots and accept the printed form", async () => {
    const page = await env.open("/page/tree-basics.html");
    const first = await page.ref('"Save profile"');
    const again = await page.ref('"Save profile"', { filter: "interactive" });
    expect(again).toBe(first);
    const result = await page.call("inspect_element_styles", {
      ref_id: `[${first}]`,
      properties: ["display"],
    });
    expect(result).toMatchObject({ success: true, tag: "input" });
  });

  it("are never reused after their element is gone, and ref_floor keeps them unique across pages", async () => {
    const page = await env.open("/page/rerender.html");
    const before = await page.ref("Remove Alpha");
    await page.page("window.rerender()");
    const after = await page.ref("Remove Alpha");
    expect(after).toBeGreaterThan(before);
    await page.goto(env.fixtures.url("/page/rerender.html"));
    const fresh = await page.call("get_accessibility_tree", { ref_floor: 500 });
    expect(fresh.tree).toMatch(/\[50[1-9]\] button "Remove Alpha"/);
  });
});

describe("overlays, shadow roots and frames", () => {
  it("prints an open modal first, once", async () => {
    const page = await env.open("/page/modal.html");
    const tree = await page.tree();
    const lines = tree.split("\n");
    expect(lines[0]).toMatch(/^dialog "Create tag" modal$/);
    // Its heading repeats the dialog's name (aria-labelledby): printed once, on the dialog line.
    expect(tree.match(/Create tag/g)?.length).toBe(1);
    expect(lines[1]).toMatch(/^ {2}\[\d+\] textbox "Tag name"$/);
    expect(tree.indexOf('dialog "Create tag"')).toBeLessThan(tree.indexOf("Release tags"));
    expect(tree.match(/button "Cancel"/g)?.length).toBe(1);
    expect(tree).not.toMatch(/^overlay$/m); // the empty backdrop layer is not printed
  });

  it("walks open shadow roots in place, slots included", async () => {
    const page = await env.open("/page/shadow.html");
    const tree = await page.tree();
    expect(tree).toMatch(/heading "Slotted title" level=2/);
    expect(tree).toMatch(/\[\d+\] textbox "Nickname"/);
    expect(tree).toMatch(/\[\d+\] button "Open action"/);
  });

  it("walks same-origin iframes in place with their own refs and marks cross-origin ones", async () => {
    const page = await env.open("/page/frames.html");
    await page.page(
      "new Promise((r) => { const f = document.getElementById('cross'); if (f.contentWindow && f.dataset.loaded) r(); f.addEventListener('load', () => r()); setTimeout(r, 2000); })",
    );
    const tree = await page.tree();
    expect(tree).toMatch(/\[\d+\] iframe "Coupon"\n(\s+.*\n)*?\s+\[\d+\] textbox "Coupon code"/);
    expect(tree).toMatch(/\[\d+\] iframe "Payment" cross-origin src="http:\/\/localhost:\d+"/);
    const codeRef = await page.ref('textbox "Coupon code"');
    const typed = await page.call("type_ax", { ref_id: codeRef, value: "SAVE10" });
    expect(typed).toMatchObject({ success: true, verified: true, value: "SAVE10" });
  });
});
