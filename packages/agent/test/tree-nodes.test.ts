/**
 * The tree as data (@webbrain/protocol tree-nodes.ts): where a node sits, finding a node by a
 * ref as a call carries it, checking nodes read back from a page, and the trace recorder asking
 * for nodes without handing them to its caller.
 */
import {
  isTreeNodeLine,
  linkTreeNodes,
  nodeWithRef,
  pickTreeNodes,
  placeTreeNodes,
  TREE_NODES_PARAM,
  treeNodesOf,
} from "@webbrain/protocol";
import { describe, expect, it } from "vitest";
import { TraceRecorder } from "../src/index.js";
import { MemoryBrowser } from "./memory-browser.js";
import { line, printTree } from "./scripted-tree.js";

const NODES = [
  line(0, "banner"),
  line(1, "link", "Home", { ref: 1 }),
  line(0, "heading", "Checkout", { states: ["level=1"] }),
  line(0, "main"),
  line(1, "form", "Shipping"),
  line(2, "textbox", "Email", { ref: 2, value: "ada@example.com" }),
  line(2, "heading", "Gift"),
  line(2, "checkbox", "Wrap it", { ref: 3, states: ["checked"] }),
  line(1, "button", "Pay", { ref: 4 }),
];

describe("placing tree nodes", () => {
  const placed = placeTreeNodes(linkTreeNodes(NODES));

  it("gives each node its enclosing areas, outermost first, and leaves an area by depth", () => {
    expect(placed[1]).toMatchObject({ ref: 1, within: [{ role: "banner", name: "" }] });
    expect(placed[5]).toMatchObject({
      ref: 2,
      value: "ada@example.com",
      within: [
        { role: "main", name: "" },
        { role: "form", name: "Shipping" },
      ],
    });
    // Back at depth 1: out of the form, still in main.
    expect(placed[8]?.within).toEqual([{ role: "main", name: "" }]);
  });

  it("gives each node the heading printed before it, not its own", () => {
    expect(placed[1]?.heading).toBeUndefined();
    expect(placed[2]?.heading).toBeUndefined();
    expect(placed[5]?.heading).toBe("Checkout");
    expect(placed[6]?.heading).toBe("Checkout");
    expect(placed[7]?.heading).toBe("Gift");
  });

  it("keeps what the page reported unchanged", () => {
    expect(placed.map(({ within: _w, heading: _h, ...node }) => node)).toEqual(NODES);
  });

  it("links each node to its area and heading by index, in the same list", () => {
    const linked = linkTreeNodes(NODES);
    expect(linked[5]).toMatchObject({ ref: 2, areaIndex: 4, headingIndex: 2 });
    expect(linked[4]).toMatchObject({ role: "form", areaIndex: 3 });
    expect(linked[1]).toMatchObject({ ref: 1, areaIndex: 0 });
    expect(linked[1]).not.toHaveProperty("headingIndex");
  });

  it("places nothing from an index that does not point back to an area or a heading", () => {
    const crafted = [
      { role: "main", name: "", depth: 0 },
      { ref: 1, role: "button", name: "Go", depth: 1, areaIndex: 1, headingIndex: 0 },
      { ref: 2, role: "button", name: "Stop", depth: 1, areaIndex: 9 },
      { ref: 3, role: "button", name: "Back", depth: 1, areaIndex: 1 },
    ];
    expect(placeTreeNodes(crafted).map((node) => [node.within, node.heading])).toEqual([
      [[], undefined],
      [[], undefined],
      [[], undefined],
      [[], undefined],
    ]);
  });
});

describe("picking the nodes a text shows", () => {
  const linked = linkTreeNodes(NODES);

  it("keeps the chosen nodes with the areas and headings they point at, renumbered", () => {
    const picked = pickTreeNodes(linked, (node) => node.ref === 3);
    expect(picked.map((node) => node.name)).toEqual(["", "Shipping", "Gift", "Wrap it"]);
    expect(placeTreeNodes(picked).at(-1)).toMatchObject({
      ref: 3,
      within: [
        { role: "main", name: "" },
        { role: "form", name: "Shipping" },
      ],
      heading: "Gift",
    });
  });

  it("places a picked node where it was among all the nodes", () => {
    const all = placeTreeNodes(linked);
    for (const ref of [1, 2, 3, 4]) {
      const picked = placeTreeNodes(pickTreeNodes(linked, (node) => node.ref === ref));
      expect(nodeWithRef(picked, ref)).toEqual(nodeWithRef(all, ref));
    }
  });
});

describe("a node by ref", () => {
  it("takes the ref as a number or its digits, as a ref_id arrives", () => {
    expect(nodeWithRef(NODES, 3)?.name).toBe("Wrap it");
    expect(nodeWithRef(NODES, "4")?.name).toBe("Pay");
  });
  it("finds nothing for a missing ref, a structure line or something that is not a ref", () => {
    expect(nodeWithRef(NODES, 99)).toBeUndefined();
    expect(nodeWithRef(NODES, undefined)).toBeUndefined();
    expect(nodeWithRef(NODES, "")).toBeUndefined();
    expect(nodeWithRef(NODES, "2.5")).toBeUndefined();
  });
});

describe("which lines are nodes", () => {
  it("makes nodes of controls, headings and areas, not of prose structure", () => {
    expect(isTreeNodeLine("link", 7)).toBe(true);
    expect(isTreeNodeLine("heading", undefined)).toBe(true);
    expect(isTreeNodeLine("form", undefined)).toBe(true);
    expect(isTreeNodeLine("list", undefined)).toBe(false);
    expect(isTreeNodeLine("img", undefined)).toBe(false);
  });
});

describe("nodes read back from a page", () => {
  it("reads meta.nodes when they have a node's shape", () => {
    expect(treeNodesOf({ success: true, tree: "", meta: { nodes: linkTreeNodes(NODES) } })).toEqual(
      linkTreeNodes(NODES),
    );
  });
  it("answers undefined for a read without nodes or with something else there", () => {
    expect(treeNodesOf({ success: true, tree: "", meta: {} })).toBeUndefined();
    expect(treeNodesOf({ success: true, tree: "" })).toBeUndefined();
    expect(treeNodesOf(undefined)).toBeUndefined();
    expect(treeNodesOf({ meta: { nodes: [{ role: "button", name: "Go" }] } })).toBeUndefined();
    expect(
      treeNodesOf({ meta: { nodes: [{ ref: "1", role: "button", name: "Go", depth: 0 }] } }),
    ).toBeUndefined();
    expect(treeNodesOf({ meta: { nodes: "[1] button" } })).toBeUndefined();
  });
});

describe("the trace recorder and tree reads", () => {
  const PAGE = "https://shop.example/";
  function traced(): { port: MemoryBrowser; recorder: TraceRecorder; tracedPort: MemoryBrowser } {
    const port = new MemoryBrowser({ [PAGE]: { title: "Shop", tree: NODES } }, PAGE);
    const recorder = new TraceRecorder({ task: "pay", mode: "act", url: PAGE });
    return { port, recorder, tracedPort: recorder.port(port) };
  }

  it("asks the page for nodes, learns the refs from them and hands the read on without them", async () => {
    const { port, recorder, tracedPort } = traced();
    const read = await tracedPort.pageAction("1", "get_accessibility_tree", { filter: "all" });
    expect(port.calls.at(-1)?.params).toEqual({ filter: "all", [TREE_NODES_PARAM]: true });
    expect(read.tree).toBe(printTree(NODES));
    expect(read.meta).not.toHaveProperty(TREE_NODES_PARAM);
    // As a plain read answers it: the ref names stay, for the submit guard and exec's output.
    expect(read.meta).toEqual({ ref_names: { "1": "Home", "2": "Email", "3": "Wrap it", "4": "Pay" } });

    recorder.onEvent({ type: "tool_call", id: "c", name: "click_ax", args: { ref_id: 3 } });
    await tracedPort.pageAction("1", "click_ax", { ref_id: 3 });
    recorder.onEvent({ type: "tool_result", id: "c", name: "click_ax", ok: true, preview: "ok" });
    expect(recorder.records.find((r) => r.type === "tool_call")).toMatchObject({
      target: {
        role: "checkbox",
        name: "Wrap it",
        within: [
          { role: "main", name: "" },
          { role: "form", name: "Shipping" },
        ],
        heading: "Gift",
      },
    });
  });

  it("hands the nodes on to a caller that asked for them itself", async () => {
    const { tracedPort } = traced();
    const read = await tracedPort.pageAction("1", "get_accessibility_tree", { [TREE_NODES_PARAM]: true });
    expect(treeNodesOf(read)).toEqual(linkTreeNodes(NODES));
  });
});
