/**
 * Bench: round trips of click_ax, type_ax and a snapshot through the runner's BrowserPort,
 * against the bare BiDi commands they are made of, in the same run on the same page.
 *
 * Baselines per action, measured interleaved with the runner (one of each per iteration, so drift
 * in Firefox or machine load hits every column alike):
 * - bare input: input.performActions of the same plan alone (the click or the keys);
 * - bare all: the page script's resolve call + input.performActions + the verify call, sent
 *   directly in the runner's own call shape (one script.evaluate each), without the runner's
 *   bookkeeping (navigation check, dialogs, ref floor, result shaping);
 * - floor: two *empty* sandbox evaluates (`1`, the cheapest call Firefox has) around the same
 *   input.performActions: what any design with a check before and a check after the press
 *   costs in Firefox, before doing any page work.
 * Target (issue 6): a click_ax at most 2x the bare input.performActions median.
 *
 * Why the floor matters: a verified trusted click needs one call before the press (resolve: find
 * the element, scroll it into view, refuse if occluded, record the baseline) and one after
 * (verify). Firefox 153 holds back any content-process reply that would overlap input in flight
 * (a pipelined or promise-pending call, a `script.message` or `log.entryAdded` event) until
 * about 50 ms after the input starts, so the check after the press cannot ride on the press;
 * bench/README.md has the measurements.
 *
 * Run: npm run bench -w packages/runner   (launches headless Firefox; ~1 minute)
 */
import type { PageActionName } from "@webbrain/agent";
import { findRef, startFixtureServer } from "@webbrain/testkit";
import { openBrowserConnection } from "../src/browser/browser-connection.js";
import { BidiBrowserPort } from "../src/port/bidi-browser-port.js";
import { PAGE_SANDBOX } from "../src/port/page-script-channel.js";
import { loadPageScript } from "../src/port/page-script-source.js";
import { stepSources } from "../src/tools/trusted-input.js";

const WARMUP = 5;
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 100);
const CLICK_TARGET_RATIO = 2;

interface Figures {
  median: number;
  p90: number;
}

/** Runs each variant once per iteration, in turn, and returns each one's median and p90. */
async function measureInterleaved(runs: readonly (() => Promise<unknown>)[]): Promise<Figures[]> {
  for (let i = 0; i < WARMUP; i++) for (const run of runs) await run();
  const times: number[][] = runs.map(() => []);
  for (let i = 0; i < ITERATIONS; i++) {
    for (const [k, run] of runs.entries()) {
      const started = performance.now();
      await run();
      times[k]!.push(performance.now() - started);
    }
  }
  return times.map((t) => {
    t.sort((a, b) => a - b);
    const at = (q: number) => t[Math.min(t.length - 1, Math.floor(q * t.length))]!;
    return { median: at(0.5), p90: at(0.9) };
  });
}

const ms = (value: number) => `${value.toFixed(2)} ms`.padStart(11);

const server = await startFixtureServer();
const connection = await openBrowserConnection({});
try {
  const port = await BidiBrowserPort.open({
    client: connection.client,
    pageScript: await loadPageScript(),
    downloadsDir: "/nonexistent-unused",
    ownsBrowser: true,
  });
  const client = connection.client;
  const tab = port.tabs.activeId!;
  await port.navigate(tab, server.url("/runner/trusted-only.html"));
  const tree = String((await port.pageAction(tab, "get_accessibility_tree", {})).tree);
  const button = findRef(tree, "button", "Confirm order");
  const field = findRef(tree, "textbox", "Coupon code");

  // The page call exactly as the runner sends it on the click path: one script.evaluate naming the
  // installed __webbrainCall, the arguments written in as string literals, the result JSON text.
  const handle = async (
    action: string,
    params: Record<string, unknown>,
  ): Promise<Record<string, unknown>> => {
    const result = await client.send("script.evaluate", {
      expression: `globalThis.__webbrainCall(${JSON.stringify(action)}, ${JSON.stringify(JSON.stringify(params))}, false)`,
      awaitPromise: true,
      target: { context: tab, sandbox: PAGE_SANDBOX },
      resultOwnership: "none",
    });
    if (result.type !== "success" || result.result.type !== "string")
      throw new Error(`bench: the page call failed: ${JSON.stringify(result)}`);
    return JSON.parse(result.result.value) as Record<string, unknown>;
  };
  const plan = async (action: string, params: Record<string, unknown>) =>
    // A resolve answer's plan is in its runner part (@webbrain/protocol page-answer.ts).
    ((await handle(action, { ...params, mode: "resolve" })) as { runner: { plan: unknown } }).runner
      .plan as Parameters<typeof stepSources>[0][];
  const clickPlan = await plan("click_ax", { ref_id: button });
  const typePlan = await plan("type_ax", { ref_id: field, value: "SAVE10" });
  const perform = (steps: Parameters<typeof stepSources>[0][]) => async () => {
    for (const step of steps)
      await client.send("input.performActions", { context: tab, actions: stepSources(step) });
  };

  const bareComposition =
    (action: string, params: Record<string, unknown>, steps: Parameters<typeof stepSources>[0][]) =>
    async () => {
      const resolved = await handle(action, { ...params, mode: "resolve" });
      await perform(steps)();
      const call = resolved.verify as { action?: string; params?: Record<string, unknown> } | undefined;
      if (call?.action) await handle(call.action, call.params ?? {});
    };
  // The cheapest sandbox round trip Firefox has: an evaluate of a constant.
  const emptyCall = () =>
    client.send("script.evaluate", {
      expression: "1",
      awaitPromise: false,
      target: { context: tab, sandbox: PAGE_SANDBOX },
      resultOwnership: "none",
    });
  const floor = (steps: Parameters<typeof stepSources>[0][]) => async () => {
    await emptyCall();
    await perform(steps)();
    await emptyCall();
  };

  interface Row {
    name: string;
    runner: Figures;
    input: Figures;
    all: Figures;
    floor?: Figures;
  }
  const rows: Row[] = [];
  const actionRow = async (
    name: string,
    action: PageActionName,
    params: Record<string, unknown>,
    steps: typeof clickPlan,
  ) => {
    const [runner, input, all, atFloor] = await measureInterleaved([
      () => port.pageAction(tab, action, params),
      perform(steps),
      bareComposition(action, params, steps),
      floor(steps),
    ]);
    rows.push({ name, runner: runner!, input: input!, all: all!, floor: atFloor! });
  };
  await actionRow("click_ax", "click_ax", { ref_id: button }, clickPlan);
  await actionRow("type_ax (6 chars)", "type_ax", { ref_id: field, value: "SAVE10" }, typePlan);
  const [snapshotRunner, snapshotBare] = await measureInterleaved([
    () => port.pageAction(tab, "get_accessibility_tree", {}),
    () => handle("get_accessibility_tree", {}),
  ]);
  rows.push({ name: "snapshot", runner: snapshotRunner!, input: snapshotBare!, all: snapshotBare! });

  console.log(
    `webbrain runner bench: ${ITERATIONS} interleaved iterations after ${WARMUP} warm-up, ${connection.description}`,
  );
  const ratio = (value: number) => `${value.toFixed(2)}x`.padStart(9);
  console.log(
    [
      "action".padEnd(18),
      ...["runner med", "p90", "bare input", "bare all", "floor"].map((h) => h.padStart(11)),
    ]
      .concat(["x input", "x all", "floor x"].map((h) => h.padStart(9)))
      .join(""),
  );
  for (const row of rows) {
    console.log(
      [
        row.name.padEnd(18),
        ms(row.runner.median),
        ms(row.runner.p90),
        ms(row.input.median),
        ms(row.all.median),
        row.floor ? ms(row.floor.median) : "-".padStart(11),
        ratio(row.runner.median / row.input.median),
        ratio(row.runner.median / row.all.median),
        row.floor ? ratio(row.floor.median / row.input.median) : "-".padStart(9),
      ].join(""),
    );
  }
  console.log("(snapshot: bare input = bare all = one script.callFunction of the page layer's tree build)");
  console.log(
    "(floor: two empty sandbox calls around the same press; floor x = floor / bare input, the least any check-before-and-after design costs)",
  );
  const click = rows[0]!;
  const clickRatio = click.runner.median / click.input.median;
  console.log(
    `click_ax vs bare input.performActions: ${clickRatio.toFixed(2)}x (target <= ${CLICK_TARGET_RATIO}x): ${clickRatio <= CLICK_TARGET_RATIO ? "MET" : "NOT MET"}`,
  );
  port.dispose();
} finally {
  await connection.close();
  await server.close();
}
