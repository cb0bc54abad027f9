/**
 * `npx tsx packages/page/bench/compare-builds.ts <baseline.js> [rounds] [--only <label>]`: the tree build of a
 * saved page-script bundle (e.g. from an earlier commit, written with `--save <file>`) against
 * the current source, on every fixture page, the generated 5,000-element page and the
 * python3-doc manuals (`--only big` keeps the pages whose label contains "big").
 *
 * Invariants:
 * - Both builds run in the same tab, alternating, so machine load hits both alike (the figures
 *   are fastest-of-N and median in the same run, never compared across runs). Each round asks
 *   every realm for BUILDS_PER_CALL builds back to back in one call, so BiDi round trips and
 *   idle gaps between calls do not land between the builds being compared.
 * - Firefox runs with full timer precision (privacy.reduceTimerPrecision off) so build_ms has
 *   sub-millisecond resolution; this profile is only for the bench.
 * - Besides wall-clock build_ms, each realm's column ends with Firefox's CPU time per build
 *   (all its processes, from /proc, summed over every round): far less swayed by other work
 *   on a shared machine, though it also counts the small cost of each BiDi call.
 * - Each build gets its own sandbox realm (and in the page realm its own global name), so both
 *   issue refs from 1 in the same order and their trees must match byte for byte.
 * - Every filter (all, interactive, visible) is compared, with the metadata counts; any
 *   difference is printed and makes the exit status 1.
 */
import { readFileSync, writeFileSync } from "node:fs";
import type { Server } from "node:http";
import { callFunction, createTab, evaluate, launchFirefox, navigate } from "@webbrain/bidi";
import { buildPageScript } from "../src/bundle.js";
import { BIG_PAGE_PATH, docPages, PYTHON_DOC_ROOT, startBenchFixtures } from "./bench-pages.js";
import { groupCpuMs } from "./cpu-time.js";
import { serveDirectory } from "./static-server.js";

const DEFAULT_ROUNDS = 9;
/** Builds per realm per round, run back to back inside the page. */
const BUILDS_PER_CALL = 5;
const FILTERS = ["all", "interactive", "visible"] as const;
/** The baseline bundle installs itself under this global so both fit in the page realm. */
const BASE_GLOBAL = "__webbrainPageBaseline";
const FIXTURES = [
  "tree-basics",
  "combobox",
  "forms",
  "modal",
  "dragdrop",
  "editor",
  "frames",
  "landmarks",
  "occluder",
  "rerender",
  "shadow",
];

/**
 * A tree answer of either build: the page wire envelope (`details`, `meta`) or, from a bundle
 * saved before it, the flat result with everything in `metadata`.
 */
type Result = {
  success: boolean;
  tree?: string;
  metadata?: Record<string, unknown>;
  details?: { tree?: string; metadata?: Record<string, unknown> };
  meta?: Record<string, unknown>;
  error?: string;
};

function callOf(global: string): string {
  return `(action, params) => globalThis.${global}.handle(action, params)`;
}

/** Runs the `all` tree build `count` times in a row in the realm; returns each build_ms. */
function repeatOf(global: string): string {
  return `async (count) => {
    const ms = [];
    for (let i = 0; i < count; i++) {
      const r = await globalThis.${global}.handle("get_accessibility_tree", { filter: "all" });
      ms.push((r.meta ?? r.metadata).build_ms);
    }
    return ms;
  }`;
}

function stats(values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const med = sorted[Math.floor(sorted.length / 2)] ?? 0;
  return `${(sorted[0] ?? 0).toFixed(1)} (${med.toFixed(1)})`;
}

function treeOf(r: Result): string | undefined {
  return r.details?.tree ?? r.tree;
}

/** What must match between builds: the tree, and the metadata and meta (sorted, less the timing). */
function comparable(r: Result): string {
  const m: Record<string, unknown> = { ...(r.details?.metadata ?? r.metadata ?? {}), ...(r.meta ?? {}) };
  delete m.build_ms;
  const sorted = Object.fromEntries(Object.entries(m).sort(([a], [b]) => a.localeCompare(b)));
  return JSON.stringify({ success: r.success, error: r.error, tree: treeOf(r), m: sorted });
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args[0] === "--save") {
    if (!args[1]) throw new Error("compare-builds: --save needs a file path to write the bundle to");
    writeFileSync(args[1], await buildPageScript());
    console.log(`saved the current page script to ${args[1]}`);
    return;
  }
  const baselinePath = args[0];
  if (!baselinePath) {
    throw new Error("compare-builds: pass a baseline bundle (write one first with --save <file>)");
  }
  const onlyAt = args.indexOf("--only");
  const only = onlyAt >= 0 ? args[onlyAt + 1] : undefined;
  if (onlyAt >= 0 && !only)
    throw new Error("compare-builds: --only needs part of a page label, e.g. --only big");
  const rounds = Number(args[1] && args[1] !== "--only" ? args[1] : DEFAULT_ROUNDS);
  const baseline = readFileSync(baselinePath, "utf8").replaceAll("__webbrainPage", BASE_GLOBAL);
  const current = await buildPageScript();
  const fixtures = await startBenchFixtures();
  const pages: { label: string; url: string }[] = FIXTURES.map((f) => ({
    label: f,
    url: fixtures.url(`/page/${f}.html`),
  }));
  pages.push({ label: "big-5000", url: fixtures.url(BIG_PAGE_PATH) });
  let docServer: { server: Server; origin: string } | undefined;
  const docs = docPages();
  if (docs.length > 0) {
    docServer = await serveDirectory(PYTHON_DOC_ROOT);
    for (const d of docs) pages.push({ label: d.path.slice(1), url: `${docServer.origin}${d.path}` });
  }
  if (only) pages.splice(0, pages.length, ...pages.filter((p) => p.label.includes(only)));
  const firefox = await launchFirefox({ prefs: { "privacy.reduceTimerPrecision": false } });
  let mismatches = 0;
  try {
    const context = await createTab(firefox.client);
    console.log(
      "page | sandbox base: ms min (median) cpu ms/build | sandbox new | page-realm base | page-realm new",
    );
    for (const page of pages) {
      await navigate(firefox.client, context, page.url);
      const realms = {
        sbBase: { target: { context, sandbox: "wb-base" }, global: BASE_GLOBAL, script: baseline },
        sbNew: { target: { context, sandbox: "wb-new" }, global: "__webbrainPage", script: current },
        pgBase: { target: { context }, global: BASE_GLOBAL, script: baseline },
        pgNew: { target: { context }, global: "__webbrainPage", script: current },
      };
      for (const r of Object.values(realms))
        await evaluate(firefox.client, r.target, r.script, { awaitPromise: false });
      const call = (r: (typeof realms)[keyof typeof realms], params: Record<string, unknown>) =>
        callFunction<Result>(firefox.client, r.target, callOf(r.global), ["get_accessibility_tree", params]);
      // Correctness: every filter, both sandbox builds, in the same order (refs issue alike).
      for (const filter of FILTERS) {
        const a = await call(realms.sbBase, { filter });
        const b = await call(realms.sbNew, { filter });
        if (comparable(a) !== comparable(b)) {
          mismatches++;
          writeFileSync(
            `/tmp/compare-${page.label.replaceAll("/", "_")}-${filter}.base.txt`,
            treeOf(a) ?? "",
          );
          writeFileSync(`/tmp/compare-${page.label.replaceAll("/", "_")}-${filter}.new.txt`, treeOf(b) ?? "");
          console.log(`MISMATCH ${page.label} ${filter}: trees written to /tmp/compare-*`);
        }
      }
      const times: Record<keyof typeof realms, number[]> = { sbBase: [], sbNew: [], pgBase: [], pgNew: [] };
      const cpu: Record<keyof typeof realms, number> = { sbBase: 0, sbNew: 0, pgBase: 0, pgNew: 0 };
      for (let i = 0; i < rounds; i++) {
        for (const key of Object.keys(realms) as (keyof typeof realms)[]) {
          const r = realms[key];
          const cpuBefore = groupCpuMs(firefox.pid) ?? Number.NaN;
          const ms = await callFunction<number[]>(firefox.client, r.target, repeatOf(r.global), [
            BUILDS_PER_CALL,
          ]);
          cpu[key] += (groupCpuMs(firefox.pid) ?? Number.NaN) - cpuBefore;
          times[key].push(...ms);
        }
      }
      const cell = (key: keyof typeof realms) =>
        `${stats(times[key])} cpu ${(cpu[key] / times[key].length).toFixed(1)}`;
      console.log(
        `${page.label} | ${cell("sbBase")} | ${cell("sbNew")} | ${cell("pgBase")} | ${cell("pgNew")}`,
      );
    }
  } finally {
    await firefox.close();
    await fixtures.close();
    docServer?.server.close();
  }
  console.log(mismatches === 0 ? "all trees identical" : `${mismatches} tree(s) differ`);
  process.exitCode = mismatches === 0 ? 0 : 1;
}

await main();
