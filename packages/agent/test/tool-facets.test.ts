// The tool catalog's facets agree with the rest of each declaration: guards, replay and traces
// read them instead of lists of names, so a facet that names a missing argument or a tool that
// cannot do what it says would fail quietly there.

import {
  EXAMPLE_DOWNLOAD_ID,
  type ExamplePage,
  exampleOriginUrl,
  examplePageUrl,
  exampleRef,
  isExamplePlaceholder,
  resolveExample,
} from "@webbrain/protocol";
import { Value } from "typebox/value";
import { describe, expect, it } from "vitest";
import { TOOL_CATALOG, type ToolContract } from "../src/index.js";

function argNames(spec: ToolContract): string[] {
  const properties = (spec.parameters as { properties?: Record<string, unknown> }).properties;
  return Object.keys(properties ?? {});
}

/** A page that gives every placeholder a value of the type it stands for. */
function anyPage(ref: number | string): ExamplePage {
  return {
    ref: () => ref,
    originUrl: (path) => `http://127.0.0.1:8/${path.replace(/^\//, "")}`,
    pageUrl: "http://127.0.0.1:8/page?frame=x",
    downloadId: "1",
  };
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
      if (sends.trigger === "enter_key") expect(spec.keysArg, spec.name).toBeDefined();
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

  it("every tool's example call names only its arguments and, resolved on a page, is valid for its schema", () => {
    for (const spec of TOOL_CATALOG) {
      for (const arg of Object.keys(spec.example)) expect(argNames(spec), spec.name).toContain(arg);
      // A ref placeholder stands where the schema takes a ref: the number and the printed string.
      for (const ref of [7, "7"]) {
        const args = resolveExample(spec.example, anyPage(ref));
        expect(Value.Check(spec.parameters, args), `${spec.name} ${JSON.stringify(args)}`).toBe(true);
      }
    }
  });

  it("an example is data: it survives JSON as written", () => {
    for (const spec of TOOL_CATALOG)
      expect(JSON.parse(JSON.stringify(spec.example)), spec.name).toEqual(spec.example);
  });

  it("a tree answer comes from a page tool that only looks and takes a size (dispatch fits it to the cap)", () => {
    const trees = TOOL_CATALOG.filter((s) => s.answersTree);
    expect(trees.length).toBeGreaterThan(0);
    for (const spec of trees) {
      expect(spec.kind, spec.name).toBe("observe");
      expect(spec.runs.in, spec.name).toBe("page");
      expect(argNames(spec), spec.name).toContain("max_chars");
    }
  });

  it("keys, a clicked point, a focused ref and an HTTP method are arguments the tool takes", () => {
    for (const spec of TOOL_CATALOG.filter((s) => s.keysArg)) {
      expect(argNames(spec), spec.name).toContain(spec.keysArg);
      expect(spec.kind, spec.name).toBe("act");
    }
    for (const spec of TOOL_CATALOG.filter((s) => s.clicksPoint)) {
      expect(argNames(spec), spec.name).toEqual(expect.arrayContaining(["x", "y"]));
      expect(spec.kind, spec.name).toBe("act");
    }
    for (const spec of TOOL_CATALOG.filter((s) => s.focusesRef)) {
      expect(argNames(spec), spec.name).toContain("ref_id");
      expect(spec.kind, spec.name).toBe("act");
    }
    for (const spec of TOOL_CATALOG.filter((s) => s.methodArg)) {
      expect(argNames(spec), spec.name).toContain(spec.methodArg);
      expect(spec.kind, spec.name).toBe("network");
    }
  });

  it("a tool offered only to vision models (its answer is an image the run's budget counts) only looks", () => {
    for (const spec of TOOL_CATALOG.filter((s) => s.vision)) expect(spec.kind, spec.name).toBe("observe");
  });

  it("a ref that scopes a read belongs to a tool that only looks", () => {
    for (const spec of TOOL_CATALOG.filter((s) => s.refScopesRead))
      expect(spec.kind, spec.name).toBe("observe");
  });
});

describe("example placeholders", () => {
  const page: ExamplePage = {
    ref: (role, name) => (role === "button" && name === "Go" ? 12 : Number.NaN),
    originUrl: (path) => `http://fixtures.test${path}`,
    pageUrl: "http://fixtures.test/tools.html?frame=f",
    downloadId: "d1",
  };

  it("resolves each placeholder at any depth and copies every other value", () => {
    const args = resolveExample(
      {
        ref_id: exampleRef("button", "Go"),
        urls: [exampleOriginUrl("/a.txt"), "http://elsewhere.test/"],
        target: { type: "url", url: examplePageUrl("&visit=2") },
        id: EXAMPLE_DOWNLOAD_ID,
        limit: 3,
        clear: false,
        note: null,
      },
      page,
    );
    expect(args).toEqual({
      ref_id: 12,
      urls: ["http://fixtures.test/a.txt", "http://elsewhere.test/"],
      target: { type: "url", url: "http://fixtures.test/tools.html?frame=f&visit=2" },
      id: "d1",
      limit: 3,
      clear: false,
      note: null,
    });
  });

  it("a download placeholder on a run with no download says so", () => {
    expect(() => resolveExample({ id: EXAMPLE_DOWNLOAD_ID }, { ...page, downloadId: undefined })).toThrow(
      /needs a download/,
    );
  });

  it("a placeholder is told from an argument object by its $example", () => {
    expect(isExamplePlaceholder(exampleRef("button", "Go"))).toBe(true);
    expect(isExamplePlaceholder({ type: "url", url: "x" })).toBe(false);
    expect(isExamplePlaceholder(["ref"])).toBe(false);
  });
});
