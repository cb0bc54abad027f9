/**
 * The page scripts' build cache (bundle.ts, WEBBRAIN_PAGE_SCRIPT_CACHE), which the test run turns
 * on so that its many processes share one esbuild run: a kept script is reused only while every
 * file it was built from still has the content it had. A fresh module instance stands in for a
 * later process (each process builds once and keeps the result in memory).
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { PAGE_SCRIPT_CACHE_ENV } from "../src/bundle.js";

const REALM_ENTRY = fileURLToPath(new URL("../src/runner-realm/install-runner-realm.ts", import.meta.url));

interface Cached {
  inputs: Record<string, string>;
  script: string;
}

/** The realm script as a new process would get it: a fresh bundle.ts module. */
async function buildInNewProcess(): Promise<string> {
  vi.resetModules();
  const bundle = await import("../src/bundle.js");
  return bundle.buildRunnerRealmScript();
}

describe("the page script cache", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "webbrain-page-script-cache-"));
    vi.stubEnv(PAGE_SCRIPT_CACHE_ENV, dir);
  });
  afterEach(async () => {
    vi.unstubAllEnvs();
    await rm(dir, { recursive: true, force: true });
  });

  async function cacheFile(): Promise<string> {
    const names = await readdir(dir);
    expect(names).toHaveLength(1);
    return join(dir, names[0]!);
  }

  it("keeps a build with a hash of each file it read, and a later process reuses it", async () => {
    const built = await buildInNewProcess();
    const file = await cacheFile();
    const cached = JSON.parse(await readFile(file, "utf8")) as Cached;
    expect(cached.script).toBe(built);
    expect(cached.inputs[REALM_ENTRY]).toMatch(/^[0-9a-f]{64}$/);
    // Marked, so that where the next script comes from shows.
    await writeFile(file, JSON.stringify({ ...cached, script: `${built}// kept` }));
    expect(await buildInNewProcess()).toBe(`${built}// kept`);
  });

  it("builds again when a file it was built from has changed since", async () => {
    const built = await buildInNewProcess();
    const file = await cacheFile();
    const cached = JSON.parse(await readFile(file, "utf8")) as Cached;
    // As if the entry's content had been another when the kept script was built.
    const stale: Cached = { inputs: { ...cached.inputs, [REALM_ENTRY]: "0".repeat(64) }, script: "stale" };
    await writeFile(file, JSON.stringify(stale));
    expect(await buildInNewProcess()).toBe(built);
    // And the fresh build is what is kept now.
    expect(JSON.parse(await readFile(file, "utf8"))).toEqual(cached);
  });

  it("builds in every process when the variable is unset, keeping nothing", async () => {
    vi.stubEnv(PAGE_SCRIPT_CACHE_ENV, undefined);
    expect(await buildInNewProcess()).toContain("__webbrain");
    expect(await readdir(dir)).toEqual([]);
  });
});
