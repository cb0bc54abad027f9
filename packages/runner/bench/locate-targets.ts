/**
 * `npx tsx packages/runner/bench/locate-targets.ts`: how a workflow replay should find a recorded
 * target (role and name), measured two ways on the task-bench fixture apps (issue 25):
 *
 * - tree: what replay does today (workflow-replay.ts): read the page's tree through the page
 *   layer with its nodes, then `findTarget` on them (role, name, enclosing areas, heading);
 * - locateNodes: WebDriver BiDi's `browsingContext.locateNodes` with the accessibility locator
 *   `{role, name}` (Firefox computes the role and name itself), which answers a node handle.
 *
 * Accuracy: a method finds a target when it answers exactly one element, and both found the same
 * element when their boxes agree (the tree's ref through inspect_element_styles; the node through
 * getBoundingClientRect). Time: median of ITERATIONS finds per target, the two methods interleaved
 * so load moves both alike. A replay step is find + act + verify; act and verify are the same for
 * both, so the find is the whole difference.
 *
 * Storage, on the same pages in the same run: the step screenshot a trace keeps per step with
 * `--trace-shots` (or the add-on's "Screenshot per step"), the viewport as a JPEG at the
 * recorder's first quality, taken over BiDi; its bytes as stored (base64 decoded) and the time
 * the capture took.
 */
import { findTarget, type TargetDescriptor, TRACE_SHOT_QUALITIES } from "@webbrain/agent";
import { placeTreeNodes, TREE_NODES_PARAM, treeNodesOf } from "@webbrain/protocol";
import { startFixtureServer } from "@webbrain/testkit";
import { openBrowserConnection } from "../src/browser/browser-connection.js";
import { BidiBrowserPort } from "../src/port/bidi-browser-port.js";
import { loadPageScript } from "../src/port/page-script-source.js";

const ITERATIONS = 15;
/** What replay asks of the tree (workflow-replay.ts REPLAY_TREE_MAX_CHARS). */
const TREE_MAX_CHARS = 1_000_000;

/** Targets on each fixture app's first page, as a recording would name them. */
const PAGES: { path: string; targets: [role: string, name: string][] }[] = [
  {
    path: "signin.html",
    targets: [
      ["textbox", "Email"],
      ["textbox", "Password"],
      ["checkbox", "Remember me"],
      ["button", "Sign in"],
    ],
  },
  {
    path: "settings.html",
    targets: [
      ["textbox", "Display name"],
      ["textbox", "Cost centre"],
      ["combobox", "Time zone"],
      ["checkbox", "Weekly digest"],
      ["button", "Save settings"],
    ],
  },
  {
    path: "search.html",
    targets: [
      ["searchbox", "Search articles"],
      ["button", "Search"],
    ],
  },
  {
    path: "table.html",
    targets: [
      ["textbox", "Filter"],
      ["button", "Edit Grace Hopper"],
    ],
  },
  {
    path: "contact.html",
    targets: [
      ["combobox", "Topic"],
      ["button", "Send message"],
    ],
  },
];

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

interface Row {
  page: string;
  target: string;
  tree: { found: boolean; ms: number; box?: Box };
  locate: { found: boolean; ms: number; box?: Box; hits: number };
  /** The step screenshot a trace would keep for this step. */
  shot: { bytes: number; ms: number };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const sameBox = (a?: Box, b?: Box) =>
  a !== undefined &&
  b !== undefined &&
  (["x", "y", "width", "height"] as const).every((k) => Math.abs(a[k] - b[k]) < 1);

const server = await startFixtureServer();
const connection = await openBrowserConnection({});
const rows: Row[] = [];
try {
  const port = await BidiBrowserPort.open({
    client: connection.client,
    pageScript: await loadPageScript(),
    downloadsDir: "/nonexistent-unused",
    ownsBrowser: true,
  });
  const client = connection.client;
  const tab = port.tabs.activeId;
  if (!tab) throw new Error("bench: no tab");

  const byTree = async (target: TargetDescriptor) => {
    const read = await port.pageAction(tab, "get_accessibility_tree", {
      max_chars: TREE_MAX_CHARS,
      [TREE_NODES_PARAM]: true,
    });
    return findTarget(placeTreeNodes(treeNodesOf(read) ?? []), target);
  };
  const byLocate = (role: string, name: string) =>
    client.send("browsingContext.locateNodes", {
      context: tab,
      locator: { type: "accessibility", value: { role, name } },
    });

  for (const { path, targets } of PAGES) {
    await port.navigate(tab, server.url(`/task-bench/${path}`));
    for (const [role, name] of targets) {
      const target: TargetDescriptor = { role, name, within: [] };
      const treeMs: number[] = [];
      const locateMs: number[] = [];
      for (let i = 0; i < ITERATIONS; i++) {
        let start = performance.now();
        await byTree(target);
        treeMs.push(performance.now() - start);
        start = performance.now();
        await byLocate(role, name);
        locateMs.push(performance.now() - start);
      }
      const match = await byTree(target);
      let treeBox: Box | undefined;
      if (match.ok) {
        const inspected = await port.pageAction(tab, "inspect_element_styles", { ref_id: Number(match.ref) });
        treeBox = inspected.rect as Box | undefined;
      }
      const located = await byLocate(role, name);
      let locateBox: Box | undefined;
      const node = located.nodes[0];
      if (located.nodes.length === 1 && node?.sharedId) {
        const rect = await client.send("script.callFunction", {
          functionDeclaration:
            "function () { const r = this.getBoundingClientRect(); return JSON.stringify({ x: r.left, y: r.top, width: r.width, height: r.height }); }",
          this: { sharedId: node.sharedId },
          awaitPromise: false,
          target: { context: tab },
        });
        if (rect.type === "success" && rect.result.type === "string")
          locateBox = JSON.parse(rect.result.value) as Box;
      }
      const shotStart = performance.now();
      const image = await port.screenshot(tab, { jpegQuality: TRACE_SHOT_QUALITIES[0] });
      const shot = {
        bytes: Buffer.from(image.dataBase64, "base64").length,
        ms: performance.now() - shotStart,
      };
      rows.push({
        shot,
        page: path,
        target: `${role} "${name}"`,
        tree: { found: match.ok, ms: median(treeMs), ...(treeBox ? { box: treeBox } : {}) },
        locate: {
          found: located.nodes.length === 1,
          hits: located.nodes.length,
          ms: median(locateMs),
          ...(locateBox ? { box: locateBox } : {}),
        },
      });
    }
  }
  port.dispose();
} finally {
  await connection.close();
  await server.close();
}

const pad = (text: string, width: number) => text.padEnd(width);
console.log(`locate-targets bench ${new Date().toISOString()}, ${ITERATIONS} finds per target (median ms)\n`);
console.log(
  `| ${pad("page", 14)} | ${pad("target", 28)} | tree ms | tree found | locateNodes ms | locateNodes hits | same element |`,
);
console.log(
  `|${"-".repeat(16)}|${"-".repeat(30)}|---------|------------|----------------|------------------|--------------|`,
);
for (const row of rows) {
  console.log(
    `| ${pad(row.page, 14)} | ${pad(row.target, 28)} | ${row.tree.ms.toFixed(2).padStart(7)} | ${pad(row.tree.found ? "yes" : "no", 10)} | ${row.locate.ms.toFixed(2).padStart(14)} | ${String(row.locate.hits).padStart(16)} | ${pad(sameBox(row.tree.box, row.locate.box) ? "yes" : "no", 12)} |`,
  );
}
const treeFound = rows.filter((r) => r.tree.found).length;
const locateFound = rows.filter((r) => r.locate.found).length;
const same = rows.filter((r) => sameBox(r.tree.box, r.locate.box)).length;
const treeTotal = rows.reduce((sum, r) => sum + r.tree.ms, 0);
const locateTotal = rows.reduce((sum, r) => sum + r.locate.ms, 0);
console.log(
  `\nfound: tree ${treeFound}/${rows.length}, locateNodes ${locateFound}/${rows.length}, same element ${same}/${rows.length}`,
);
const shotBytes = rows.reduce((sum, r) => sum + r.shot.bytes, 0) / rows.length;
const shotMs = rows.reduce((sum, r) => sum + r.shot.ms, 0) / rows.length;
console.log(
  `storage per screenshot step (JPEG q${TRACE_SHOT_QUALITIES[0]}, same pages): mean ${(shotBytes / 1024).toFixed(1)} KB, min ${(Math.min(...rows.map((r) => r.shot.bytes)) / 1024).toFixed(1)} KB, max ${(Math.max(...rows.map((r) => r.shot.bytes)) / 1024).toFixed(1)} KB; capture ${shotMs.toFixed(1)} ms per step`,
);
console.log(
  `find per step (mean of medians): tree ${(treeTotal / rows.length).toFixed(2)} ms, locateNodes ${(locateTotal / rows.length).toFixed(2)} ms, ratio locateNodes/tree ${(locateTotal / treeTotal).toFixed(2)}x`,
);
