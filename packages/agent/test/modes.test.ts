// Modes and tiers: the tool lists, and the execution-time rule that holds whatever the model sends.
import { lastToolResultText, toolNames } from "@webbrain/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { allowedTool, MODES, TIERS, TOOL_CATALOG, toolNamesFor } from "../src/index.js";
import { type Harness, harness } from "./harness.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("tool selection", () => {
  it("gives Ask only observe tools and read-only network tools", () => {
    for (const tier of TIERS) {
      const names = toolNamesFor({ mode: "ask", tier, vision: true });
      for (const name of names) {
        const kind = TOOL_CATALOG.find((spec) => spec.name === name)?.kind;
        expect(["observe", "network"], `${name} in Ask/${tier}`).toContain(kind);
      }
      expect(names).not.toContain("clarify");
      expect(names).not.toContain("execute_js");
    }
  });

  it("offers hover and drag_drop on Full only, execute_js in Dev only, screenshot to vision models only", () => {
    expect(toolNamesFor({ mode: "act", tier: "full", vision: false })).toEqual(
      expect.arrayContaining(["hover", "drag_drop"]),
    );
    for (const tier of ["compact", "mid"] as const) {
      expect(toolNamesFor({ mode: "act", tier, vision: false })).not.toContain("hover");
      expect(toolNamesFor({ mode: "act", tier, vision: false })).not.toContain("drag_drop");
    }
    expect(toolNamesFor({ mode: "dev", tier: "mid", vision: false })).not.toContain("hover");
    expect(toolNamesFor({ mode: "act", tier: "full", vision: false })).not.toContain("execute_js");
    expect(toolNamesFor({ mode: "dev", tier: "mid", vision: false })).toEqual(
      expect.arrayContaining([
        "execute_js",
        "read_page_source",
        "inspect_element_styles",
        "get_shadow_dom",
        "get_frames",
      ]),
    );
    expect(toolNamesFor({ mode: "act", tier: "mid", vision: false })).not.toContain("get_frames");
    expect(toolNamesFor({ mode: "act", tier: "full", vision: false })).not.toContain("screenshot");
    expect(toolNamesFor({ mode: "act", tier: "full", vision: true })).toContain("screenshot");
  });

  it("refuses Compact Dev with a message that says what to do", () => {
    expect(() => toolNamesFor({ mode: "dev", tier: "compact", vision: false })).toThrow(
      /Dev mode needs a Mid or Full provider tier/,
    );
    const permit = allowedTool({ mode: "dev", tier: "compact", vision: false }, "get_accessibility_tree");
    expect(permit.allowed).toBe(false);
  });

  it("every offered tool is one the executor allows, and nothing else is", () => {
    for (const mode of MODES) {
      for (const tier of TIERS) {
        if (mode === "dev" && tier === "compact") continue;
        const offered = new Set(toolNamesFor({ mode, tier, vision: true }));
        for (const spec of TOOL_CATALOG) {
          expect(
            allowedTool({ mode, tier, vision: true }, spec.name).allowed,
            `${spec.name} ${mode}/${tier}`,
          ).toBe(offered.has(spec.name));
        }
      }
    }
  });
});

describe("execution-time mode rule", () => {
  it("Ask refuses an action tool the model calls anyway, and the refusal reaches the model", async () => {
    h = await harness({
      script: [
        { toolCalls: [{ name: "click_ax", arguments: { ref_id: 4 } }] },
        (request) => {
          expect(lastToolResultText(request)).toContain("click_ax is refused: Ask mode is read-only");
          return { text: "I can only read in Ask mode; switch to Act to add it." };
        },
      ],
    });
    const result = await h.agent.processMessage("1", "add the lamp to the cart", { mode: "ask" });
    expect(result.status).toBe("answered");
    expect(h.browser.named("click_ax")).toHaveLength(0);
    expect(toolNames(h.llm.requests[0] as never)).not.toContain("click_ax");
  });

  it("Act refuses a Dev-only tool", async () => {
    h = await harness({
      script: [
        { toolCalls: [{ name: "execute_js", arguments: { code: "document.title" } }] },
        (request) => ({ text: lastToolResultText(request) }),
      ],
    });
    const result = await h.agent.processMessage("1", "run js", { mode: "act" });
    expect(result.text).toContain("execute_js is refused: it exists only in Dev mode");
    expect(h.browser.named("execute_js")).toHaveLength(0);
  });

  it("Dev on a Compact provider is refused before any model call", async () => {
    h = await harness({ script: [], tier: "compact" });
    const result = await h.agent.processMessage("1", "inspect the styles", { mode: "dev" });
    expect(result.status).toBe("error");
    expect(result.error?.kind).toBe("mode_tier");
    expect(result.text).toMatch(/Switch to Act mode, or pick a larger model/);
    expect(h.llm.requests).toHaveLength(0);
  });

  it("Dev on Full offers and runs execute_js", async () => {
    h = await harness({
      script: [{ toolCalls: [{ name: "execute_js", arguments: { code: "1+1" } }] }, { text: "2" }],
      pages: {
        "https://shop.example/": {
          title: "Shop",
          tree: "",
          onAction: (action) => (action === "execute_js" ? { success: true, value: 2 } : { success: true }),
        },
      },
    });
    const result = await h.agent.processMessage("1", "compute", { mode: "dev" });
    expect(result.text).toBe("2");
    expect(toolNames(h.llm.requests[0] as never)).toContain("execute_js");
    expect(h.browser.named("execute_js")).toHaveLength(1);
  });
});
