// The tool catalog's facets agree with the rest of each declaration: guards, replay and traces
// read them instead of lists of names, so a facet that names a missing argument or a tool that
// cannot do what it says would fail quietly there.
import { Value } from "typebox/value";
import { describe, expect, it } from "vitest";
import { TOOL_CATALOG, type ToolContract } from "../src/index.js";

function argNames(spec: ToolContract): string[] {
  const properties = (spec.parameters as { properties?: Record<string, unknown> }).properties;
  return Object.keys(properties ?? {});
}

describe("tool facets", () => {
  it("a typed argument is one of the tool's string arguments", () => {
    for (const spec of TOOL_CATALOG.filter((s) => s.typedArg)) {
      expect(argNames(spec), spec.name).toContain(spec.typedArg);
    }
  });

  it("a replayed tool acts on a page or a port, never the agent, and a typing one declares its text", () => {
    for (const spec of TOOL_CATALOG.filter((s) => s.replay)) {
      expect(["page", "port"], spec.name).toContain(spec.runs.in);
      if (spec.replay === "typing") expect(spec.typedArg, spec.name).toBeDefined();
      if (spec.replay === "navigation") expect(spec.kind, spec.name).toBe("navigate");
    }
  });

  it("a tool that may send reads what its trigger and target need", () => {
    for (const spec of TOOL_CATALOG.filter((s) => s.sends)) {
      const sends = spec.sends!;
      const args = argNames(spec);
      expect(spec.kind, spec.name).toBe("act");
      if (sends.target === "ref") expect(args, spec.name).toContain("ref_id");
      if (sends.trigger === "submit_flag") expect(args, spec.name).toContain("submit");
      if (sends.trigger === "enter_key") expect(args, spec.name).toContain("keys");
      if (sends.trigger === "typed_newline") expect(spec.typedArg, spec.name).toBeDefined();
      if (sends.label === "text") expect(args, spec.name).toContain("text");
      if (sends.label === "ref_name") expect(sends.target, spec.name).toBe("ref");
    }
  });

  it("every tool that changes the page, goes somewhere or downloads is behind the permission gate", () => {
    for (const spec of TOOL_CATALOG) {
      if (spec.permission?.origin === "url") expect(argNames(spec), spec.name).toContain("url");
      if (spec.kind === "act" || spec.kind === "download" || spec.kind === "network")
        expect(spec.permission, spec.name).toBeDefined();
      if (spec.kind === "observe" || spec.kind === "control")
        expect(spec.permission, spec.name).toBeUndefined();
    }
  });

  it("a form check names its frame, and an upload preflight belongs to a tool the gate asks about uploads", () => {
    for (const spec of TOOL_CATALOG.filter((s) => s.formCheck))
      expect(argNames(spec), spec.name).toContain("urlFilter");
    for (const spec of TOOL_CATALOG.filter((s) => s.preflight === "upload"))
      expect(spec.permission?.capability, spec.name).toBe("upload");
  });

  it("the URLs a call opens are in the argument it declares, and an on-page tool runs in a port", () => {
    for (const spec of TOOL_CATALOG.filter((s) => s.opensUrls))
      expect(argNames(spec), spec.name).toContain(spec.opensUrls);
    for (const spec of TOOL_CATALOG.filter((s) => s.onPage)) expect(spec.runs.in, spec.name).toBe("port");
  });

  it("every example call is valid for the tool's schema", () => {
    const withExample = TOOL_CATALOG.filter((s) => s.example);
    expect(withExample.length).toBeGreaterThan(0);
    for (const spec of withExample) expect(Value.Check(spec.parameters, spec.example), spec.name).toBe(true);
  });

  it("a ref that scopes a read belongs to a tool that only looks", () => {
    for (const spec of TOOL_CATALOG.filter((s) => s.refScopesRead))
      expect(spec.kind, spec.name).toBe("observe");
  });
});
