/** The `--tools` groups of `webbrain mcp`: parsing, and that no offered tool is out of reach. */
import { MODES } from "@webbrain/protocol";
import { describe, expect, it } from "vitest";
import { UsageError } from "../src/errors.js";
import {
  isListed,
  MCP_TOOL_GROUPS,
  parseMcpToolSelection,
  unlistedToolMessage,
} from "../src/mcp/mcp-tool-groups.js";
import { offeredTools } from "../src/tools/tool-runner.js";

const EVERY_GROUP = parseMcpToolSelection(Object.keys(MCP_TOOL_GROUPS).join(","), "act");

describe("webbrain mcp --tools", () => {
  it("lists the core set by default, and the dev tools too in Dev mode", () => {
    const act = parseMcpToolSelection(undefined, "act");
    expect(isListed(act, "click_ax")).toBe(true);
    expect(isListed(act, "upload_file")).toBe(false);
    expect(isListed(act, "execute_js")).toBe(false);
    expect(isListed(parseMcpToolSelection(undefined, "dev"), "execute_js")).toBe(true);
  });

  it("takes a comma list of groups, or all", () => {
    const chosen = parseMcpToolSelection("core, frames", "act");
    expect(isListed(chosen, "iframe_type")).toBe(true);
    expect(isListed(chosen, "fetch_url")).toBe(false);
    expect(isListed(parseMcpToolSelection("files,all", "act"), "done")).toBe(true);
  });

  it("refuses an unknown group or an empty list with the groups it knows", () => {
    for (const bad of ["cor", "core,tabs", ","]) {
      expect(() => parseMcpToolSelection(bad, "act")).toThrow(UsageError);
      expect(() => parseMcpToolSelection(bad, "act")).toThrow(
        /core, frames, selectors, forms, fetch, files, history, dev, or all/,
      );
    }
  });

  it("puts every tool a mode offers in a group, except done and clarify (the client is the agent)", () => {
    for (const mode of MODES) {
      const outside = offeredTools(mode, "full", true)
        .map((tool) => tool.name)
        .filter((name) => !isListed(EVERY_GROUP, name));
      expect(outside.sort(), mode).toEqual(mode === "ask" ? [] : ["clarify", "done"]);
    }
  });

  it("names the flag that would serve a tool left out, keeping the groups chosen", () => {
    const chosen = parseMcpToolSelection("core,frames", "act");
    expect(unlistedToolMessage(chosen, "upload_file")).toBe(
      "upload_file is not served by this webbrain mcp (it lists core,frames tools); start it with --tools core,frames,files to use it.",
    );
    expect(unlistedToolMessage(chosen, "done")).toMatch(/start it with --tools all to use it\.$/);
  });
});
