/**
 * A click that leaves a page behind a `beforeunload` prompt, on the add-on's port, in real
 * Firefox with the add-on installed (issue 23; the runner's test on the same fixture is
 * packages/runner/test/real-site-endings.test.ts): the prompt is answered as the runner's
 * default policy does (accepted) without a person, the result reports it and the navigation
 * (`navigated`, `url`) once, and the next tree read is the new page's, never an empty tree
 * passed off as a success while the document loads.
 */
import { navigate } from "@webbrain/bidi";
import { type FixtureServer, findRef, nodesIn, refByName, WITH_NODES, waitFor } from "@webbrain/testkit";
import { beforeAll, describe, expect, it } from "vitest";
import { click } from "./addon-harness.js";
import { type PortProbe, useProbedAddon } from "./port-probe.js";

type Result = Record<string, unknown> & { success: boolean; error?: string };

let fixtures: FixtureServer;
let probe: PortProbe;
/** Prompts Firefox opened (BiDi sees them; a person would have had to answer each). */
const prompts: string[] = [];

const firefox = useProbedAddon(
  (probed) => {
    ({ fixtures, probe } = probed);
  },
  () => ({
    "/slow-body.html": (_req, res) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.write("<!doctype html><html><head><title>Slow</title></head>");
      setTimeout(() => res.end("<body><h1>Late</h1><button>Arrived late</button></body></html>"), 1_500);
    },
  }),
);

beforeAll(async () => {
  await firefox.client.subscribe(["browsingContext.userPromptOpened"]);
  firefox.client.on("browsingContext.userPromptOpened", (params) => {
    prompts.push(JSON.stringify(params));
  });
});

function pageAction(tab: string, action: string, params: Record<string, unknown> = {}): Promise<Result> {
  return probe.call<Result>("pageAction", tab, action, params);
}

describe("a click that leaves a page behind a beforeunload prompt (add-on)", () => {
  it("answers the prompt, reports it and the navigation once, and the next tree is the new page's", async () => {
    const context = await firefox.newTab();
    const url = fixtures.url("/runner/leave-guard.html");
    await navigate(firefox.client, context, url);
    const tab = await probe.tabIdOf(url);
    // A person's click in the draft first: Firefox asks before unload only after a user gesture.
    await click(firefox.client, context, "#draft");
    const nodes = nodesIn(await pageAction(tab, "get_accessibility_tree", WITH_NODES));
    const clicked = await pageAction(tab, "click_ax", { ref_id: refByName(nodes, "link", "Go to products") });
    const next = await pageAction(tab, "get_accessibility_tree");
    expect(clicked).toMatchObject({
      success: true,
      navigated: true,
      url: fixtures.url("/runner/product-form.html"),
      dialogs: [expect.stringMatching(/^beforeunload ".*" -> accepted$/)],
    });
    expect(JSON.stringify(clicked)).not.toContain("focus moved");
    expect(prompts).toEqual([]);
    expect(next.success).toBe(true);
    expect(String(next.tree)).toMatch(/^heading "Create a product" level=1$/m);
    expect(findRef(String(next.tree), "button", "Save product")).toBeGreaterThan(0);
  });

  it("leaves the person's own navigations to Firefox's prompt once the action is over", async () => {
    const context = await firefox.newTab();
    const url = fixtures.url("/runner/leave-guard.html?own=1");
    await navigate(firefox.client, context, url);
    const tab = await probe.tabIdOf(url);
    await click(firefox.client, context, "#draft");
    const nodes = nodesIn(await pageAction(tab, "get_accessibility_tree", WITH_NODES));
    // An action that leaves nothing; then, past its window, the person clicks the link.
    await pageAction(tab, "click_ax", { ref_id: refByName(nodes, "textbox", "Draft") });
    await new Promise((resolve) => setTimeout(resolve, 3_500));
    prompts.length = 0;
    await click(firefox.client, context, "#leave");
    await waitFor(async () => prompts.length === 1, { message: "Firefox did not ask the person" });
    expect(JSON.parse(prompts[0]!)).toMatchObject({ type: "beforeunload" });
  });

  it("never answers an empty tree as a success while the document is still loading", async () => {
    const context = await firefox.newTab();
    const start = fixtures.url("/runner/leave-guard.html");
    await navigate(firefox.client, context, start);
    const tab = await probe.tabIdOf(start);
    await firefox.client.send("browsingContext.navigate", {
      context,
      url: fixtures.url("/slow-body.html"),
      wait: "none",
    });
    // Read once the slow document is the tab's (its head has come, its body has not).
    await waitFor(
      async () => (await probe.call<{ url: string }>("getTab", tab)).url.endsWith("/slow-body.html"),
      {
        message: "the slow document never committed",
      },
    );
    const read = await pageAction(tab, "get_accessibility_tree");
    expect(read.success, JSON.stringify(read)).toBe(true);
    expect(String(read.tree)).toMatch(/\[\d+\] button "Arrived late"/);
  });
});
