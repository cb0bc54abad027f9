// Modes and tiers: the tool lists, and the execution-time rule that holds whatever the model sends.
import {
  ALL_BROWSER_CAPABILITIES,
  browserCapabilities,
  MODES,
  modeFitsTier,
  TIERS,
  valuesForMessage,
} from "@webbrain/protocol";
import { lastToolResultText, toolNames } from "@webbrain/testkit";
import { afterEach, describe, expect, it } from "vitest";
import {
  AgentError,
  agentFacilities,
  allowedTool,
  PAGE_ACTIONS,
  PAGE_LAYER_ACTIONS,
  PORT_ACTIONS,
  TOOL_CATALOG,
  toolNamesFor,
  toolsNotOffered,
  validateProviderConfig,
} from "../src/index.js";
import { type Harness, harness } from "./harness.js";

const ALL = ALL_BROWSER_CAPABILITIES;

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("tool selection", () => {
  it("gives Ask only observe tools and read-only network tools", () => {
    for (const tier of TIERS) {
      const names = toolNamesFor({ mode: "ask", tier, vision: true, capabilities: ALL });
      for (const name of names) {
        const kind = TOOL_CATALOG.find((spec) => spec.name === name)?.kind;
        expect(["observe", "network"], `${name} in Ask/${tier}`).toContain(kind);
      }
      expect(names).not.toContain("clarify");
      expect(names).not.toContain("execute_js");
    }
  });

  it("offers hover and drag_drop on Full only, execute_js in Dev only, screenshot to vision models only", () => {
    expect(toolNamesFor({ mode: "act", tier: "full", vision: false, capabilities: ALL })).toEqual(
      expect.arrayContaining(["hover", "drag_drop"]),
    );
    for (const tier of ["compact", "mid"] as const) {
      expect(toolNamesFor({ mode: "act", tier, vision: false, capabilities: ALL })).not.toContain("hover");
      expect(toolNamesFor({ mode: "act", tier, vision: false, capabilities: ALL })).not.toContain(
        "drag_drop",
      );
    }
    expect(toolNamesFor({ mode: "dev", tier: "mid", vision: false, capabilities: ALL })).not.toContain(
      "hover",
    );
    expect(toolNamesFor({ mode: "act", tier: "full", vision: false, capabilities: ALL })).not.toContain(
      "execute_js",
    );
    expect(toolNamesFor({ mode: "dev", tier: "mid", vision: false, capabilities: ALL })).toEqual(
      expect.arrayContaining([
        "execute_js",
        "read_page_source",
        "inspect_element_styles",
        "get_shadow_dom",
        "get_frames",
      ]),
    );
    expect(toolNamesFor({ mode: "act", tier: "mid", vision: false, capabilities: ALL })).not.toContain(
      "get_frames",
    );
    expect(toolNamesFor({ mode: "act", tier: "full", vision: false, capabilities: ALL })).not.toContain(
      "screenshot",
    );
    expect(toolNamesFor({ mode: "act", tier: "full", vision: true, capabilities: ALL })).toContain(
      "screenshot",
    );
  });

  it("refuses Compact Dev with a message that says what to do", () => {
    expect(() => toolNamesFor({ mode: "dev", tier: "compact", vision: false, capabilities: ALL })).toThrow(
      /Dev mode needs a Mid or Full provider tier/,
    );
    const permit = allowedTool(
      { mode: "dev", tier: "compact", vision: false, capabilities: ALL },
      "get_accessibility_tree",
    );
    expect(permit.allowed).toBe(false);
  });

  it("Dev on Compact is the one mode and tier that do not fit (modeFitsTier), and every other pair offers tools", () => {
    const unfit = MODES.flatMap((mode) =>
      TIERS.filter((tier) => !modeFitsTier(mode, tier)).map((tier) => `${mode}/${tier}`),
    );
    expect(unfit).toEqual(["dev/compact"]);
    for (const mode of MODES)
      for (const tier of TIERS.filter((t) => modeFitsTier(mode, t)))
        expect(
          toolNamesFor({ mode, tier, vision: false, capabilities: ALL }).length,
          `${mode}/${tier}`,
        ).toBeGreaterThan(0);
  });

  it("every offered tool is one the executor allows, and nothing else is", () => {
    for (const mode of MODES) {
      for (const tier of TIERS) {
        if (!modeFitsTier(mode, tier)) continue;
        const offered = new Set(toolNamesFor({ mode, tier, vision: true, capabilities: ALL }));
        for (const spec of TOOL_CATALOG) {
          expect(
            allowedTool({ mode, tier, vision: true, capabilities: ALL }, spec.name).allowed,
            `${spec.name} ${mode}/${tier}`,
          ).toBe(offered.has(spec.name));
        }
      }
    }
  });
});

describe("tool declarations and port capabilities", () => {
  it("routes every page-run tool by its declaration", () => {
    for (const spec of TOOL_CATALOG) {
      const inPage = spec.runs.in === "page";
      const byPort = spec.runs.in === "port_action";
      expect((PAGE_LAYER_ACTIONS as readonly string[]).includes(spec.name), spec.name).toBe(inPage);
      expect(PORT_ACTIONS.includes(spec.name), spec.name).toBe(byPort);
      expect((PAGE_ACTIONS as readonly string[]).includes(spec.name), spec.name).toBe(inPage || byPort);
      // A tool the port or the page runs needs a port capability; only the agent's own need none.
      expect(spec.needs.length === 0, spec.name).toBe(spec.runs.in === "agent");
    }
  });

  it("offers a tool only when the port declares every capability it needs", () => {
    const pageOnly = browserCapabilities("page_layer", "navigation");
    const names = toolNamesFor({ mode: "dev", tier: "full", vision: true, capabilities: pageOnly });
    expect(names).toContain("click_ax");
    expect(names).toContain("navigate");
    expect(names).not.toContain("screenshot");
    expect(names).not.toContain("execute_js");
    expect(names).not.toContain("iframe_click");
    expect(names).not.toContain("fetch_url");
    expect(names).toEqual(expect.arrayContaining(["done", "clarify"]));
    expect(toolsNotOffered(pageOnly)).toEqual([
      "screenshot",
      "search_history",
      "get_history_visits",
      "iframe_click",
      "iframe_type",
      "promote_iframe",
      "new_tab",
      "fetch_url",
      "research_url",
      "list_downloads",
      "read_downloaded_file",
      "download_resource_from_page",
      "download_files",
      "upload_file",
      "execute_js",
      "pause_for_user",
    ]);
    expect(toolsNotOffered(ALL)).toEqual([]);
  });

  it("refuses at execution a tool the port cannot run, saying it is not supported", () => {
    const noJs = browserCapabilities("page_layer", "navigation");
    const permit = allowedTool({ mode: "dev", tier: "full", vision: true, capabilities: noJs }, "execute_js");
    expect(permit).toEqual({
      allowed: false,
      reason: expect.stringContaining("execute_js is not supported by this browser"),
    });
    // Nobody at hand is said as such: the run is unattended, not the browser lacking something.
    expect(
      allowedTool({ mode: "act", tier: "full", vision: true, capabilities: noJs }, "pause_for_user"),
    ).toEqual({
      allowed: false,
      reason: expect.stringContaining("pause_for_user is refused: nobody is at hand"),
    });
  });

  it("offers the scheduling tools only where the embedder gives the agent a scheduler", () => {
    const withScheduler = { capabilities: ALL, facilities: agentFacilities({ scheduler: {} }) };
    const without = { capabilities: ALL, facilities: agentFacilities({}) };
    expect(toolNamesFor({ mode: "ask", tier: "compact", vision: false, ...withScheduler })).toContain(
      "schedule_task",
    );
    expect(toolNamesFor({ mode: "ask", tier: "full", vision: false, ...withScheduler })).not.toContain(
      "schedule_resume",
    );
    expect(toolNamesFor({ mode: "act", tier: "mid", vision: false, ...withScheduler })).toEqual(
      expect.arrayContaining(["schedule_task", "schedule_resume"]),
    );
    const offeredWithout = toolNamesFor({ mode: "act", tier: "full", vision: false, ...without });
    expect(offeredWithout).not.toContain("schedule_task");
    expect(offeredWithout).not.toContain("schedule_resume");
    expect(allowedTool({ mode: "act", tier: "full", vision: false, ...without }, "schedule_task")).toEqual({
      allowed: false,
      reason: expect.stringContaining("schedule_task is not available here (nothing here schedules tasks"),
    });
    // They need nothing of the port, so no port lists them as not offered.
    expect(toolsNotOffered(browserCapabilities())).not.toContain("schedule_task");
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

  it("a port without execute_js is not offered it, and a call anyway is refused before the port", async () => {
    h = await harness({
      script: [
        { toolCalls: [{ name: "execute_js", arguments: { code: "1+1" } }] },
        (request) => ({ text: lastToolResultText(request) }),
      ],
    });
    h.browser.capabilities = browserCapabilities("page_layer", "navigation", "screenshot");
    const result = await h.agent.processMessage("1", "compute", { mode: "dev" });
    expect(toolNames(h.llm.requests[0] as never)).not.toContain("execute_js");
    expect(toolNames(h.llm.requests[0] as never)).toContain("read_page_source");
    expect(result.text).toContain("execute_js is not supported by this browser");
    expect(h.browser.named("execute_js")).toHaveLength(0);
  });

  it("Dev on Full offers and runs execute_js", async () => {
    h = await harness({
      script: [{ toolCalls: [{ name: "execute_js", arguments: { code: "1+1" } }] }, { text: "2" }],
      pages: {
        "https://shop.example/": {
          title: "Shop",
          tree: [],
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

describe("modes and tiers in messages", () => {
  it("lists the values from the one definition, as the messages always read", () => {
    expect(valuesForMessage(MODES)).toBe('"ask", "act" or "dev"');
    expect(valuesForMessage(TIERS, false)).toBe("compact, mid or full");
    expect(valuesForMessage(["only"])).toBe('"only"');
    expect(valuesForMessage([])).toBe("");
  });
  it("names the tiers when a provider's tier is not one", () => {
    const config = { id: "p", label: "Local", kind: "openai-compatible", model: "m", tier: "huge" };
    expect(() =>
      validateProviderConfig(config as unknown as Parameters<typeof validateProviderConfig>[0]),
    ).toThrow(
      new AgentError(
        "config",
        'Provider "Local": tier must be compact, mid or full. Fix it in the provider settings.',
      ),
    );
  });
});
