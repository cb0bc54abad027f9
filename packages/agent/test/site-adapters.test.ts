// Every site adapter is data in its own file; these tests read the folder, so an adapter that is
// not in the catalog, or whose patterns do not match its own examples, fails here.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  adapterFor,
  defineSiteAdapter,
  FINANCE_WARNING,
  getActiveAdapter,
  SITE_ADAPTERS,
} from "../src/adapters/site-adapters.js";

const SITES_DIR = join(import.meta.dirname, "..", "src", "adapters", "sites");
const files = readdirSync(SITES_DIR).filter((name) => name.endsWith(".ts"));

describe("site adapter catalog", () => {
  it("lists every file in adapters/sites exactly once, with the file name as its id", () => {
    const ids = SITE_ADAPTERS.map((adapter) => adapter.id).sort();
    expect(ids).toEqual(files.map((name) => name.replace(/\.ts$/, "")).sort());
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("has spec 000's 58 adapters across its nine kinds of site", () => {
    expect(SITE_ADAPTERS).toHaveLength(58);
    const categories = new Set(SITE_ADAPTERS.map((adapter) => adapter.category));
    expect([...categories].sort()).toEqual(
      ["code", "commerce", "finance", "jobs", "messaging", "news", "productivity", "social", "travel"].sort(),
    );
  });

  it("keeps each guidance short, so the one injected adapter costs a fixed few tokens", () => {
    for (const adapter of SITE_ADAPTERS) {
      const extra = adapter.category === "finance" ? FINANCE_WARNING.length + 1 : 0;
      expect(adapter.guidance.length - extra, adapter.id).toBeLessThanOrEqual(420);
      expect(adapter.guidance.startsWith(`${adapter.name}: `), adapter.id).toBe(true);
    }
  });

  it("gives finance adapters, and only them, the extra safety warning", () => {
    for (const adapter of SITE_ADAPTERS)
      expect(adapter.guidance.includes(FINANCE_WARNING), adapter.id).toBe(adapter.category === "finance");
  });
});

describe("getActiveAdapter", () => {
  for (const adapter of SITE_ADAPTERS) {
    it(`${adapter.id}: picks it for its example URLs and not for its counter-examples`, () => {
      expect(adapter.examples.match.length).toBeGreaterThan(0);
      for (const url of adapter.examples.match) expect(adapterFor(url)?.id, url).toBe(adapter.id);
      for (const url of adapter.examples.noMatch ?? []) expect(adapterFor(url)?.id, url).not.toBe(adapter.id);
    });
  }

  it("prefers the more specific pattern when two adapters match (LinkedIn Jobs over LinkedIn)", () => {
    expect(adapterFor("https://www.linkedin.com/jobs/view/1/")?.id).toBe("linkedin-jobs");
    expect(adapterFor("https://www.linkedin.com/feed/")?.id).toBe("linkedin");
  });

  it("answers nothing for unknown sites, non-web URLs and text that is no URL", () => {
    expect(adapterFor("https://example.org/")).toBeUndefined();
    expect(adapterFor("about:blank")).toBeUndefined();
    expect(adapterFor("file:///home/u/github.com/x")).toBeUndefined();
    expect(adapterFor("not a url")).toBeUndefined();
  });

  it("takes a caller's own adapters, and refuses a malformed pattern when it is defined", () => {
    const mine = defineSiteAdapter({
      id: "intranet",
      name: "Intranet",
      category: "productivity",
      matches: ["*://intranet.example/*"],
      advice: "Use the left menu.",
      examples: { match: ["https://intranet.example/a"] },
    });
    expect(getActiveAdapter("https://intranet.example/a", [mine])?.guidance).toBe(
      "Intranet: Use the left menu.",
    );
    expect(getActiveAdapter("https://github.com/", [mine])).toBeUndefined();
    expect(() => defineSiteAdapter({ ...mine, matches: ["intranet.example"] })).toThrow();
  });
});
