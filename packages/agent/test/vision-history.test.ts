/**
 * Vision and history through the real loop and a scripted LLM over HTTP: what images each
 * request carries (screenshots after actions, verify_form's view, the count and byte budgets),
 * and the history tools' answers and offers.
 */
import { ALL_BROWSER_CAPABILITIES, MODES } from "@webbrain/protocol";
import { imageCount, type RecordedRequest } from "@webbrain/testkit";
import { afterEach, describe, expect, it } from "vitest";
import {
  base64Bytes,
  DEFAULT_IMAGE_BUDGET,
  PRUNED_IMAGE_TEXT,
  pruneImagesToBudget,
  toolNamesFor,
} from "../src/index.js";
import { type Harness, harness, SHOP_URL } from "./harness.js";
import { line } from "./scripted-tree.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const click = (ref: number) => ({ toolCalls: [{ name: "click_ax", arguments: { ref_id: ref } }] });
const request = (index: number) => h?.llm.requests[index] as RecordedRequest;
const prunedCount = (r: RecordedRequest) =>
  (JSON.stringify(r.body).match(/older screenshot removed/g) ?? []).length;

describe("screenshots after actions", () => {
  it("a vision model sees the viewport after each action when the setting is on", async () => {
    h = await harness({
      vision: true,
      agent: { screenshotAfterActions: true },
      script: [click(4), { text: "added" }],
    });
    await h.agent.processMessage("1", "add to cart");
    // The task's screenshot, then the one taken after the click.
    expect(imageCount(request(0))).toBe(1);
    expect(imageCount(request(1))).toBe(2);
    expect(JSON.stringify(request(1).body)).toContain("[viewport after click_ax]");
  });

  it("takes none when the setting is off, and none for a model without vision", async () => {
    h = await harness({ vision: true, script: [click(4), { text: "added" }] });
    await h.agent.processMessage("1", "add to cart");
    expect(imageCount(request(1))).toBe(1);
    await h.close();
    h = await harness({
      vision: false,
      agent: { screenshotAfterActions: true },
      script: [click(4), { text: "added" }],
    });
    await h.agent.processMessage("1", "add to cart");
    expect(imageCount(request(1))).toBe(0);
    expect(h.browser.named("screenshot")).toHaveLength(0);
  });

  it("keeps only the newest 4 images: older ones become placeholders", async () => {
    h = await harness({
      vision: true,
      agent: { screenshotAfterActions: true },
      script: [click(2), click(3), click(4), click(5), click(2), click(3), { text: "done" }],
    });
    await h.agent.processMessage("1", "click around");
    const last = request(6);
    // 1 task screenshot + 6 after actions = 7 taken; 4 kept.
    expect(imageCount(last)).toBe(DEFAULT_IMAGE_BUDGET.keepImages);
    expect(prunedCount(last)).toBe(3);
  });

  it("stops taking screenshots once the per-task count budget is spent", async () => {
    h = await harness({
      vision: true,
      agent: { screenshotAfterActions: true, imageBudget: { maxImagesPerRun: 2 } },
      script: [
        click(2),
        click(3),
        click(4),
        { toolCalls: [{ name: "screenshot", arguments: {} }] },
        { text: "done" },
      ],
    });
    await h.agent.processMessage("1", "click around");
    // After click 2 and click 3: two screenshots; click 4 goes without; the tool is refused.
    expect(h.browser.named("screenshot")).toHaveLength(1 + 2);
    expect(JSON.stringify(request(4).body)).toContain("screenshot budget of this task is spent");
  });
});

describe("verify_form", () => {
  it("reads the fields and, for a vision model, sends a viewport screenshot", async () => {
    h = await harness({
      vision: true,
      pages: {
        [SHOP_URL]: {
          title: "Shop",
          tree: [line(0, "textbox", "Name", { ref: 1, value: "Ada" })],
          onAction: (action) =>
            action === "verify_form"
              ? { success: true, fields: [{ label: "Name", value: "Ada" }] }
              : { success: true },
        },
      },
      script: [{ toolCalls: [{ name: "verify_form", arguments: {} }] }, { text: "looks right" }],
    });
    await h.agent.processMessage("1", "check the form");
    const sent = JSON.stringify(request(1).body);
    expect(sent).toContain("Ada");
    expect(sent).toContain("[viewport after verify_form]");
    expect(imageCount(request(1))).toBe(2);
  });

  it("sends the fields alone to a model without vision", async () => {
    h = await harness({
      vision: false,
      script: [{ toolCalls: [{ name: "verify_form", arguments: {} }] }, { text: "ok" }],
    });
    await h.agent.processMessage("1", "check the form");
    expect(imageCount(request(1))).toBe(0);
  });
});

describe("image byte budget", () => {
  const image = (bytes: number) => ({
    type: "image" as const,
    data: "A".repeat(Math.ceil((bytes * 4) / 3)),
    mimeType: "image/png",
  });
  const result = (bytes: number) => ({
    role: "toolResult" as const,
    toolCallId: "c",
    toolName: "screenshot",
    content: [image(bytes)],
    isError: false,
    timestamp: 0,
  });

  it("keeps the newest images that fit the bytes, and always the newest one", () => {
    const mb = 1024 * 1024;
    const kept = pruneImagesToBudget([result(1 * mb), result(2 * mb), result(3 * mb)], {
      keepImages: 4,
      maxImageBytes: 4 * mb,
    });
    const shapes = kept.map((m) => (m.role === "toolResult" ? m.content[0]?.type : ""));
    // 3 MB (newest) fits; 2 MB would pass 4 MB; 1 MB still fits after it.
    expect(shapes).toEqual(["image", "text", "image"]);
    const huge = pruneImagesToBudget([result(9 * mb)], { keepImages: 4, maxImageBytes: 4 * mb });
    expect(huge[0]?.role === "toolResult" && huge[0].content[0]?.type).toBe("image");
    expect(JSON.stringify(kept)).toContain(PRUNED_IMAGE_TEXT);
    expect(base64Bytes("QUJD")).toBe(3);
  });
});

describe("history tools", () => {
  it("are offered from Mid in every mode, only by a port that reads history", () => {
    for (const mode of MODES) {
      const names = toolNamesFor({
        mode,
        tier: "mid",
        vision: false,
        capabilities: ALL_BROWSER_CAPABILITIES,
      });
      expect(names).toEqual(expect.arrayContaining(["search_history", "get_history_visits"]));
    }
    const compact = toolNamesFor({
      mode: "ask",
      tier: "compact",
      vision: false,
      capabilities: ALL_BROWSER_CAPABILITIES,
    });
    expect(compact).not.toContain("search_history");
    const noHistory = new Set([...ALL_BROWSER_CAPABILITIES].filter((c) => c !== "history"));
    expect(toolNamesFor({ mode: "ask", tier: "full", vision: false, capabilities: noHistory })).not.toContain(
      "search_history",
    );
  });

  it("search_history answers the pages the user visited, as untrusted text", async () => {
    const docs = "https://docs.example/guide";
    h = await harness({
      tier: "mid",
      pages: {
        [SHOP_URL]: { title: "Shop", tree: [line(0, "heading", "Shop", { ref: 1 })] },
        [docs]: { title: "The Guide", tree: [line(0, "heading", "Guide", { ref: 1 })] },
      },
      script: [
        { toolCalls: [{ name: "navigate", arguments: { url: docs } }] },
        { toolCalls: [{ name: "search_history", arguments: { text: "guide" } }] },
        { toolCalls: [{ name: "get_history_visits", arguments: { url: docs } }] },
        { text: "You read The Guide." },
      ],
    });
    const result = await h.agent.processMessage("1", "what guide did I read?");
    expect(result.text).toBe("You read The Guide.");
    const searched = JSON.stringify(request(2).body);
    expect(searched).toContain("[search_history ok]");
    expect(searched).toContain("The Guide");
    expect(searched).toContain("untrusted");
    expect(searched).not.toContain('\\"title\\":\\"Shop\\"');
    const query = h.browser.named("searchHistory")[0]?.params as { text: string; maxResults: number };
    expect(query.text).toBe("guide");
    expect(query.maxResults).toBe(20);
    expect(JSON.stringify(request(3).body)).toContain("[get_history_visits ok]");
  });
});
