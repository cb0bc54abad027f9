// Tool results: what the model reads (`content`) apart from what code reads (`details`).

import type { ToolCall } from "@mariozechner/pi-ai";
import { browserCapabilities } from "@webbrain/protocol";
import { describe, expect, it } from "vitest";
import {
  BlockedDone,
  DuplicateSubmitGuard,
  LoopDetector,
  MemoryStore,
  newConversation,
  type PageResult,
  PermissionGate,
  type RunContext,
  ToolExecutor,
  type ToolOutcome,
} from "../src/index.js";
import { MemoryBrowser } from "./memory-browser.js";
import { line, printTree } from "./scripted-tree.js";

const URL = "https://shop.example/";
const NODES = [line(0, "heading", "Shop", { ref: 1 }), line(0, "button", "Place order", { ref: 2 })];
const TREE = printTree(NODES);

function setup(treeResult?: PageResult, onAction?: (action: string) => PageResult) {
  const browser = new MemoryBrowser(
    {
      [URL]: {
        title: "Shop",
        tree: NODES,
        ...(treeResult ? { treeResult } : {}),
        ...(onAction ? { onAction } : {}),
      },
    },
    URL,
  );
  const executor = new ToolExecutor({
    port: browser,
    gate: new PermissionGate(new MemoryStore(), undefined),
    submitGuard: new DuplicateSubmitGuard(),
    blockedDone: new BlockedDone(),
  });
  const run: RunContext = {
    conversation: newConversation("1", "act", 0),
    tier: "full",
    vision: true,
    planRequired: false,
    loop: new LoopDetector(),
    malformedStreak: 0,
    unverifiedFrames: new Set<string>(),
  };
  let n = 0;
  const call = (name: string, args: Record<string, unknown>): Promise<ToolOutcome> => {
    const toolCall: ToolCall = { type: "toolCall", id: `c${++n}`, name, arguments: args };
    return executor.execute(toolCall, run);
  };
  return { browser, call };
}

function textOf(outcome: ToolOutcome): string {
  return outcome.content.map((block) => (block.type === "text" ? block.text : "")).join("\n");
}

describe("tool results", () => {
  it("does not repeat a verified type's request to the model, and keeps it whole in the details", async () => {
    const typed = {
      success: true,
      target: { ref_id: 3, role: "textbox", name: "Email" },
      verified: true,
      value: "ada@example.org",
      trusted: true,
    };
    const { call } = setup(undefined, () => typed);
    const outcome = await call("type_ax", { ref_id: 3, value: "ada@example.org" });
    // The status line and the one bit the call did not know: that the text is there.
    expect(textOf(outcome)).toBe('[type_ax ok] \n{"verified":true}');
    expect(outcome.details).toMatchObject(typed);
  });

  it("keeps what a type result says beyond the request: another value, another element", async () => {
    const reformatted = {
      success: true,
      target: { ref_id: 4, role: "textbox", name: "Phone" },
      verified: false,
      reformatted: true,
      value: "(555) 010-0000",
      trusted: false,
    };
    const { call } = setup(undefined, () => reformatted);
    const text = textOf(await call("type_ax", { ref_id: 3, value: "5550100000" }));
    expect(text).toContain("<untrusted");
    for (const kept of ['"verified":false', '"value":"(555) 010-0000"', '"name":"Phone"', '"trusted":false'])
      expect(text).toContain(kept);
  });

  it("keeps bookkeeping out of the model's text and whole in the details", async () => {
    const { call } = setup({
      success: true,
      tree: TREE,
      metadata: { url: URL, truncated: false },
      meta: {
        build_ms: 3.2,
        elements_visited: 40,
        full_chars: 60,
        lines: 2,
        last_ref: 2,
        ref_names: { "1": "Shop", "2": "Place order" },
        nodes: [{ ref: 2, role: "button", name: "Place order", depth: 0 }],
      },
    });
    const outcome = await call("get_accessibility_tree", {});
    const text = textOf(outcome);
    expect(text).toContain('[2] button "Place order"');
    expect(text).toContain('"truncated":false');
    for (const hidden of [
      "build_ms",
      "elements_visited",
      "full_chars",
      "last_ref",
      "ref_names",
      "lines",
      "nodes",
    ])
      expect(text).not.toContain(hidden);
    expect(outcome.details?.meta).toMatchObject({
      build_ms: 3.2,
      last_ref: 2,
      ref_names: { "2": "Place order" },
    });
  });

  it("labels a click for the submit guard from the tree's structured ref names, not its text", async () => {
    // The tree text names ref 2 "Place order"; the structured names say what the page reported.
    const { call, browser } = setup({
      success: true,
      tree: TREE,
      meta: { ref_names: { "2": "Submit payment" } },
    });
    await call("get_accessibility_tree", {});
    expect((await call("click_ax", { ref_id: 2 })).isError).toBe(false);
    const second = await call("click_ax", { ref_id: 2 });
    expect(textOf(second)).toMatch(
      /Blocked duplicate submit: [\s\S]*<untrusted [^>]*>\n"Submit payment"\n<\/untrusted>/,
    );
    expect(second.details).toMatchObject({
      success: false,
      error: expect.stringContaining("Submit payment"),
    });
    expect(browser.named("click_ax")).toHaveLength(1);
  });

  it("gives refusals and agent messages structured details", async () => {
    const { call } = setup();
    const refused = await call("execute_js", { code: "1" });
    expect(refused.isError).toBe(true);
    expect(refused.details).toEqual({
      success: false,
      error: expect.stringContaining("execute_js is refused: it exists only in Dev mode"),
    });
    const scrolled = await call("scroll", { direction: "down" });
    expect(scrolled.details).toMatchObject({ success: true });
  });

  it("says a full-page screenshot is the viewport on a port that cannot take full pages", async () => {
    const { call, browser } = setup();
    browser.capabilities = browserCapabilities("page_layer", "navigation", "screenshot");
    const shot = await call("screenshot", { full: true });
    expect(textOf(shot)).toContain("captures the viewport only");
    expect(shot.details).toMatchObject({ success: true, full: false });
    browser.capabilities = browserCapabilities("page_layer", "screenshot", "full_page_screenshot");
    const whole = await call("screenshot", { full: true });
    expect(textOf(whole)).not.toContain("viewport only");
    expect(whole.details).toMatchObject({ full: true });
  });

  it("answers fetch_url with the response's fields in the details", async () => {
    const { call, browser } = setup();
    browser.fetchAnswer = (request) => ({
      status: 404,
      statusText: "Not Found",
      url: request.url,
      headers: { "content-type": "text/plain" },
      body: "no such page",
      truncated: false,
    });
    const outcome = await call("fetch_url", { url: "https://api.example/missing" });
    expect(outcome.isError).toBe(true);
    expect(outcome.details).toMatchObject({
      success: false,
      status: 404,
      contentType: "text/plain",
      body: "no such page",
      error: "HTTP 404 Not Found",
    });
  });
});
