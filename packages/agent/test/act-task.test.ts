// A multi-step Act task end to end: scripted model over real HTTP (OpenAI chat SSE), the agent
// loop, the executor, an in-memory BrowserPort, persistence and restore.
import {
  findRef,
  lastToolResultText,
  systemPromptText,
  toolNames,
  userTexts,
  waitFor,
} from "@webbrain/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { Agent, CONVERSATION_KEY_PREFIX } from "../src/index.js";
import { type Harness, harness, SHOP_TREE, SHOP_URL } from "./harness.js";
import { line } from "./scripted-tree.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("Act task", () => {
  it("reads the tree, types, clicks the ref the model picked by name, verifies and finishes", async () => {
    const CART_URL = "https://shop.example/cart";
    h = await harness({
      script: [
        { text: "Reading the page.", toolCalls: [{ name: "get_accessibility_tree", arguments: {} }] },
        (request) => ({
          toolCalls: [
            {
              name: "type_ax",
              arguments: { ref_id: findRef(lastToolResultText(request), "textbox", "Search"), value: "lamp" },
            },
            {
              name: "click_ax",
              arguments: { ref_id: findRef(lastToolResultText(request), "button", "Add to cart") },
            },
          ],
        }),
        { toolCalls: [{ name: "get_accessibility_tree", arguments: {} }] },
        (request) => {
          expect(lastToolResultText(request)).toContain("Lamp (1)");
          return {
            toolCalls: [{ name: "done", arguments: { summary: "Added the lamp; the cart shows Lamp (1)." } }],
          };
        },
      ],
      pages: {
        [SHOP_URL]: {
          title: "Shop",
          tree: SHOP_TREE,
          onAction: (action, params) =>
            action === "click_ax" && String(params.ref_id) === "4"
              ? { navigate: CART_URL }
              : { success: true },
        },
        [CART_URL]: {
          title: "Cart",
          tree: [line(0, "heading", "Cart", { ref: 9 }), line(0, "listitem", "Lamp (1)", { ref: 10 })],
        },
      },
    });
    const result = await h.agent.processMessage("1", "Put a lamp in the cart", {
      onEvent: (event) => h?.events.push(event),
    });

    expect(result).toMatchObject({
      status: "done",
      text: "Added the lamp; the cart shows Lamp (1).",
      steps: 4,
    });
    const actions = h.browser.calls
      .filter((call) => call.method === "pageAction")
      .map((call) => [call.action, call.params]);
    expect(actions).toEqual([
      ["get_accessibility_tree", { max_chars: 7000 }],
      ["type_ax", { ref_id: 2, value: "lamp" }],
      ["click_ax", { ref_id: 4 }],
      ["get_accessibility_tree", { max_chars: 7000 }],
      ["probe_completion", { summary: "Added the lamp; the cart shows Lamp (1)." }],
    ]);

    const first = h.llm.requests[0];
    if (!first) throw new Error("no request");
    expect(userTexts(first)[0]).toContain("Put a lamp in the cart");
    expect(userTexts(first)[0]).toContain(`URL: ${SHOP_URL}`);
    expect(systemPromptText(first)).toContain("get_accessibility_tree first");
    expect(toolNames(first)).toContain("click_ax");
    expect(toolNames(first)).toContain("hover");
    // Page text reaches the model wrapped as untrusted, behind a status line the agent wrote.
    expect(lastToolResultText(h.llm.requests[1] as never)).toMatch(
      /^\[get_accessibility_tree ok\]\n.*\n?<untrusted source="page https:\/\/shop\.example\/">/s,
    );

    const types = h.events.map((event) => event.type);
    expect(types[0]).toBe("run_start");
    expect(types.filter((type) => type === "step")).toHaveLength(4);
    expect(types).toContain("tool_call");
    expect(types.at(-1)).toBe("run_end");
  });

  it("persists the conversation after every step and restores it in a new Agent", async () => {
    h = await harness({
      script: [
        { toolCalls: [{ name: "get_accessibility_tree", arguments: {} }] },
        { text: "The page is a shop with a search box." },
        (request) => {
          // The restored history is sent: the earlier question and answer are in it.
          expect(userTexts(request)[0]).toContain("What is this page?");
          return { text: "It sells lamps." };
        },
      ],
    });
    const answer = await h.agent.processMessage("1", "What is this page?", { mode: "ask" });
    expect(answer).toMatchObject({ status: "answered", text: "The page is a shop with a search box." });
    const stored = (await h.store.get(`${CONVERSATION_KEY_PREFIX}1`)) as {
      messages: unknown[];
      mode: string;
    };
    expect(stored.mode).toBe("ask");
    expect(stored.messages).toHaveLength(4); // user, assistant(tool call), tool result, assistant

    const restored = new Agent({ port: h.browser, store: h.store, provider: h.provider });
    expect((await restored.getConversation("1"))?.messages).toHaveLength(4);
    const next = await restored.processMessage("1", "What does it sell?");
    expect(next).toMatchObject({ status: "answered", text: "It sells lamps." });
    expect(h.llm.requests).toHaveLength(3);

    await restored.clearConversation("1");
    expect(await h.store.get(`${CONVERSATION_KEY_PREFIX}1`)).toBeUndefined();
  });

  it("refuses a second task in a tab while one runs", async () => {
    const busy = await harness({ script: [{ fail: "hang" }] });
    h = busy;
    const controller = new AbortController();
    const first = busy.agent.processMessage("1", "slow task", { signal: controller.signal });
    // The first task is at the model (its request hangs there) before the second comes in.
    await waitFor(() => busy.llm.requests.length === 1);
    const second = await busy.agent.processMessage("1", "another task");
    expect(second.status).toBe("error");
    expect(second.error?.kind).toBe("busy");
    controller.abort();
    expect((await first).status).toBe("aborted");
  });
});

describe("broken storage", () => {
  it("answers a typed internal error instead of throwing when the Store fails", async () => {
    h = await harness({ script: [{ text: "hello" }] });
    h.store.set = async () => {
      throw new Error("disk full");
    };
    const result = await h.agent.processMessage("1", "hi");
    expect(result.status).toBe("error");
    expect(result.error?.kind).toBe("internal");
    expect(result.text).toContain("disk full");
    // The tab is not left marked busy.
    h.store.set = async () => {};
    expect((await h.agent.processMessage("1", "hi")).error?.kind).not.toBe("busy");
  });
});
