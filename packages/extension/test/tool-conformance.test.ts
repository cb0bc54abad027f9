/**
 * Tool conformance, add-on: through the real add-on installed in Firefox, for every mode and
 * tier, every tool the add-on's port is offered is called once with its contract's example
 * (testkit's conformanceArgs resolves the example's placeholders on this page; iframe_type and
 * verify_form also on the same-origin frame, click also on a download link: testkit's
 * conformanceFollowUps) on the conformance fixture by the agent's own executor and must succeed (no "unknown action", no "not
 * supported") with the effect testkit's conformanceEffectProblem reads from its result, the
 * runner's checks: verify_form {urlFilter} names the frame's field and none of the top page's, a
 * click on a download link reports the download in the runner's fields, and so on. The list of
 * tools the add-on does not offer is asserted exactly (README "What the add-on does not offer"
 * says why for each), so a capability that drifts fails here.
 */

import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { TOOL_CATALOG } from "@webbrain/agent";
import { evaluate, navigate } from "@webbrain/bidi";
import { TREE_NODES_PARAM, treeNodesOf } from "@webbrain/protocol";
import {
  CONFORMANCE_COMBOS,
  CONFORMANCE_ORDER,
  conformanceArgs,
  conformanceEffectProblem,
  conformanceFollowUps,
  conformancePageUrl,
  detailsProblem,
  type FixtureServer,
  NOT_OFFERED,
  setupFirefox,
  startFixtureServer,
  UNSUPPORTED_ANSWER,
} from "@webbrain/testkit";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ADDON_PREFS,
  buildAddon,
  downloadPrefs,
  firefoxTabId,
  grantOptionalPermission,
  installAddon,
  openAddonPage,
  until,
  waitForContext,
} from "./addon-harness.js";

/** What the add-on's port does not offer, in catalog order (testkit's NOT_OFFERED.addon says why). */
const ADDON_NOT_OFFERED: string[] = Object.keys(NOT_OFFERED.addon);

const PROBE_ENTRY = join(dirname(fileURLToPath(import.meta.url)), "tool-probe", "tool-probe-page.ts");
const PROBE_PAGE = "tool-probe.html";

interface CallAnswer {
  ok: boolean;
  text: string;
  details: Record<string, unknown> | null;
  workingTabId: string;
}

let addon: Awaited<ReturnType<typeof buildAddon>> | undefined;
let fixtures: FixtureServer;
let probe: string;
const downloadsDir = await mkdtemp(join(tmpdir(), "webbrain-conformance-downloads-"));

beforeAll(async () => {
  addon = await buildAddon();
  await build({
    entryPoints: { "tool-probe": PROBE_ENTRY },
    outdir: addon.dir,
    bundle: true,
    format: "iife",
    platform: "browser",
    target: ["firefox140"],
    // pi-ai's Mistral provider (never loaded here) imports this optional package, which is not
    // installed; the add-on's own build stubs it out, the probe leaves it unresolved.
    external: ["@opentelemetry/api"],
    logLevel: "warning",
  });
  await writeFile(
    join(addon.dir, PROBE_PAGE),
    '<!doctype html><meta charset="utf-8"><title>tool probe</title><script src="tool-probe.js"></script>\n',
  );
  fixtures = await startFixtureServer();
});
afterAll(async () => {
  await fixtures?.close();
  await addon?.remove();
  await rm(downloadsDir, { recursive: true, force: true });
});

const firefox = setupFirefox({
  prefs: {
    ...ADDON_PREFS,
    ...downloadPrefs(downloadsDir),
  },
});

async function inProbe<T>(expression: string): Promise<T> {
  const json = await evaluate<string>(firefox.client, probe, expression, { awaitPromise: true });
  return JSON.parse(json) as T;
}

beforeAll(async () => {
  await installAddon(firefox.client, addon!.dir);
  const settings = await waitForContext(
    firefox.client,
    (url) => url.includes("/settings.html"),
    "the settings page",
  );
  probe = await openAddonPage(firefox.client, settings, PROBE_PAGE);
  await until(() => evaluate<boolean>(firefox.client, probe, "typeof webbrainTools === 'object'"), {
    message: "the tool probe page did not start",
  });
  // The history tools need the optional permission a person grants when first asked.
  await grantOptionalPermission(firefox.client, probe, "history");
  // Ask reads downloads but cannot start one: give every mode one to read.
  await inProbe(`webbrainTools.download(${JSON.stringify(fixtures.url("/conformance/report.txt"))})`);
});

let opened = 0;

describe("add-on tool conformance", () => {
  it("has one conformance call for every declared tool", () => {
    expect([...CONFORMANCE_ORDER].sort()).toEqual(TOOL_CATALOG.map((spec) => spec.name).sort());
  });

  it("does not offer exactly the tools its README explains", async () => {
    expect(await inProbe<string[]>("webbrainTools.notOffered()")).toEqual(ADDON_NOT_OFFERED);
  });

  for (const [mode, tier] of CONFORMANCE_COMBOS) {
    it(`${mode}/${tier}: every offered tool runs`, async () => {
      const context = await firefox.newTab();
      // A unique URL per case, so the port's tab is found by it.
      const pageUrl = `${conformancePageUrl(fixtures.origin, fixtures.crossOrigin)}&case=${++opened}`;
      await navigate(firefox.client, context, pageUrl);
      const tab = String(await firefoxTabId(firefox.client, probe, pageUrl));
      const offered = new Set(
        await inProbe<string[]>(
          `webbrainTools.start(${JSON.stringify(mode)}, ${JSON.stringify(tier)}, ${JSON.stringify(tab)})`,
        ),
      );
      const tree = await inProbe<CallAnswer>(
        `webbrainTools.call("get_accessibility_tree", ${JSON.stringify({ filter: "all", [TREE_NODES_PARAM]: true })})`,
      );
      expect(tree.ok, tree.text).toBe(true);
      const failures: string[] = [];
      let called = 0;
      for (const tool of CONFORMANCE_ORDER) {
        if (!offered.has(tool)) continue;
        const latest = await inProbe<{ id: string } | null>("webbrainTools.latestDownload()");
        const ctx = {
          nodes: treeNodesOf(tree.details) ?? [],
          pageUrl,
          url: (path: string) => fixtures.url(path),
          offered,
          ...(latest ? { downloadId: latest.id } : {}),
        };
        called++;
        for (const args of [conformanceArgs(tool, ctx), ...conformanceFollowUps(tool, ctx)]) {
          const answer = await inProbe<CallAnswer>(
            `webbrainTools.call(${JSON.stringify(tool)}, ${JSON.stringify(args)})`,
          );
          const problem =
            !answer.ok || UNSUPPORTED_ANSWER.test(answer.text)
              ? String(answer.details?.error ?? answer.text.slice(0, 300))
              : (conformanceEffectProblem(tool, args, answer.details ?? {}, pageUrl) ??
                detailsProblem(tool, answer.details ?? {}));
          if (problem) failures.push(`${tool} ${JSON.stringify(args)}: ${problem}`);
        }
      }
      expect(failures).toEqual([]);
      expect(called).toBe(offered.size);
    });
  }
});
