/**
 * Bench: round trips of click_ax, type_ax and a snapshot through the runner's BrowserPort,
 * against the bare BiDi commands they are made of, in the same run on the same page.
 *
 * Baselines per action:
 * - bare input.performActions: the trusted input alone (the click or the keys);
 * - bare composition: the page script's resolve call + input.performActions + the verify call,
 *   sent directly, without the runner's bookkeeping (navigation check, dialogs, ref floor).
 * Target (issue 6): a click_ax at most 2x the bare input.performActions median.
 *
 * Run: npm run bench -w packages/runner   (launches headless Firefox; ~1 minute)
 */
import { findRef, startFixtureServer } from "@webbrain/testkit";
import type * as Bidi from "webdriver-bidi-protocol";
import { BidiBrowserPort } from "../src/bidi-browser-port.js";
import { openBrowserConnection } from "../src/browser-connection.js";
import { PAGE_SANDBOX } from "../src/page-script-channel.js";
import { loadPageScript } from "../src/page-script-source.js";
import { stepSources } from "../src/trusted-input.js";

const WARMUP = 5;
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 40);
const CLICK_TARGET_RATIO = 2;

interface Figures {
  median: number;
  p90: number;
}

async function measure(run: () => Promise<unknown>): Promise<Figures> {
  for (let i = 0; i < WARMUP; i++) await run();
  const times: number[] = [];
  for (let i = 0; i < ITERATIONS; i++) {
    const started = performance.now();
    await run();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!;
  return { median: at(0.5), p90: at(0.9) };
}

const ms = (value: number) => `${value.toFixed(2)} ms`.padStart(10);

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

  const handle = (action: string, params: Record<string, unknown>) =>
    client.send("script.callFunction", {
      functionDeclaration: "(action, params) => globalThis.__webbrainPage.handle(action, JSON.parse(params))",
      awaitPromise: true,
      target: { context: tab, sandbox: PAGE_SANDBOX },
      arguments: [
        { type: "string", value: action },
        { type: "string", value: JSON.stringify(params) },
      ],
      serializationOptions: { maxDomDepth: 0, maxObjectDepth: null, includeShadowTree: "all" },
      resultOwnership: "none",
    });
  const field0 = (result: Bidi.Script.EvaluateResult, key: string): Bidi.Script.RemoteValue | undefined =>
    result.type === "success" && result.result.type === "object"
      ? result.result.value?.find(([k]) => k === key)?.[1]
      : undefined;
  const plan = async (action: string, params: Record<string, unknown>) => {
    const resolved = await handle(action, { ...params, mode: "resolve" });
    const planValue = field0(resolved, "plan");
    return JSON.parse(JSON.stringify(planValue ? fromPlan(planValue) : []));
  };
  const clickPlan = await plan("click_ax", { ref_id: button });
  const typePlan = await plan("type_ax", { ref_id: field, value: "SAVE10" });
  const perform = (steps: Parameters<typeof stepSources>[0][]) => async () => {
    for (const step of steps)
      await client.send("input.performActions", { context: tab, actions: stepSources(step) });
  };

  const rows: [string, Figures, Figures, Figures][] = [];
  const bareComposition =
    (action: string, params: Record<string, unknown>, steps: Parameters<typeof stepSources>[0][]) =>
    async () => {
      const resolved = await handle(action, { ...params, mode: "resolve" });
      await perform(steps)();
      const verify = field0(resolved, "verify");
      const token = verify ? JSON.stringify(fromPlan(verify)) : "{}";
      const call = JSON.parse(token) as { action?: string; params?: Record<string, unknown> };
      if (call.action) await handle(call.action, call.params ?? {});
    };
  rows.push([
    "click_ax",
    await measure(() => port.pageAction(tab, "click_ax", { ref_id: button })),
    await measure(perform(clickPlan)),
    await measure(bareComposition("click_ax", { ref_id: button }, clickPlan)),
  ]);
  rows.push([
    "type_ax (6 chars)",
    await measure(() => port.pageAction(tab, "type_ax", { ref_id: field, value: "SAVE10" })),
    await measure(perform(typePlan)),
    await measure(bareComposition("type_ax", { ref_id: field, value: "SAVE10" }, typePlan)),
  ]);
  const snapshotBare = await measure(() => handle("get_accessibility_tree", {}));
  rows.push([
    "snapshot",
    await measure(() => port.pageAction(tab, "get_accessibility_tree", {})),
    snapshotBare,
    snapshotBare,
  ]);

  console.log(
    `webbrain runner bench: ${ITERATIONS} iterations after ${WARMUP} warm-up, ${connection.description}`,
  );
  console.log(
    `${"action".padEnd(18)}${"runner med".padStart(11)}${"p90".padStart(11)}${"bare input".padStart(11)}${"bare all".padStart(11)}${"x input".padStart(9)}${"x all".padStart(8)}`,
  );
  for (const [name, runner, input, all] of rows) {
    console.log(
      `${name.padEnd(18)}${ms(runner.median)} ${ms(runner.p90)} ${ms(input.median)} ${ms(all.median)}${(runner.median / input.median).toFixed(2).padStart(8)}x${(runner.median / all.median).toFixed(2).padStart(7)}x`,
    );
  }
  console.log("(snapshot: bare input = bare all = one script.callFunction of the page layer's tree build)");
  const click = rows[0]!;
  const ratio = click[1].median / click[2].median;
  console.log(
    `click_ax vs bare input.performActions: ${ratio.toFixed(2)}x (target <= ${CLICK_TARGET_RATIO}x): ${ratio <= CLICK_TARGET_RATIO ? "MET" : "NOT MET"}`,
  );
  port.dispose();
} finally {
  await connection.close();
  await server.close();
}

/** A RemoteValue (object/array/primitive) as plain JSON. */
function fromPlan(value: Bidi.Script.RemoteValue): unknown {
  switch (value.type) {
    case "array":
      return (value.value ?? []).map(fromPlan);
    case "object":
      return Object.fromEntries((value.value ?? []).map(([k, v]) => [k, fromPlan(v)]));
    case "string":
    case "number":
    case "boolean":
      return value.value;
    default:
      return null;
  }
}
