/**
 * Bench: one whole executor step (a tool call in, its result out) through the agent's
 * ToolExecutor (ToolRunner) and BidiBrowserPort, against the bare `input.performActions` of the
 * same press, interleaved in the same run on the same page. Also prints the BiDi commands each
 * step sends (counted by the client), so a regression in round trips shows as a number.
 *
 * Two more columns split the step: `port` is BidiBrowserPort.pageAction alone (the step less the
 * executor), `floor` is the same three round trips with no page work (an empty sandbox evaluate,
 * the press, another empty evaluate). step/floor is what the step costs beyond the round trips a
 * verified trusted click needs; under load the floor alone moves far from 1x, since every round
 * trip waits for Firefox's processes to be scheduled.
 *
 * The step includes everything the agent adds around the port: the mode/tier gate, argument
 * validation, the loop detector and submit guard (advisory, so repeating a click is allowed), the
 * URL read before and after the action (from memory, context-documents.ts) and result shaping.
 * Target (issue 17): a click_ax step at most 2x the bare press, median.
 *
 * Run: npm run bench -w packages/runner   (launches headless Firefox)
 */
import type { PageActionName } from "@webbrain/agent";
import { findRef, startFixtureServer } from "@webbrain/testkit";
import { openBrowserConnection } from "../src/browser/browser-connection.js";
import { BidiBrowserPort } from "../src/port/bidi-browser-port.js";
import { PAGE_SANDBOX } from "../src/port/page-script-channel.js";
import { loadPageScript } from "../src/port/page-script-source.js";
import { ToolRunner } from "../src/tools/tool-runner.js";
import { type InputStep, stepSources } from "../src/tools/trusted-input.js";

const WARMUP = 5;
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 100);
const STEP_TARGET_RATIO = 2;

async function medianOfInterleaved(runs: readonly (() => Promise<unknown>)[]): Promise<number[]> {
  for (let i = 0; i < WARMUP; i++) for (const run of runs) await run();
  const times: number[][] = runs.map(() => []);
  for (let i = 0; i < ITERATIONS; i++) {
    // Rotate the order each iteration: a call right after a press can wait for the page's
    // repaint that the press caused, so a fixed order would charge that to whichever runs first.
    for (let j = 0; j < runs.length; j++) {
      const k = (i + j) % runs.length;
      const started = performance.now();
      await runs[k]!();
      times[k]!.push(performance.now() - started);
    }
  }
  return times.map((t) => t.sort((a, b) => a - b)[Math.floor(t.length / 2)]!);
}

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
  const runner = new ToolRunner({
    port,
    tabId: tab,
    mode: "act",
    tier: "full",
    vision: false,
    advisoryGuards: true,
  });
  await runner.call("navigate", { url: server.url("/runner/trusted-only.html") });
  const tree = String((await port.pageAction(tab, "get_accessibility_tree", {})).tree);
  const button = findRef(tree, "button", "Confirm order");
  const field = findRef(tree, "textbox", "Coupon code");

  /** The plan the page layer answers for an action, pressed bare as the baseline. */
  const planOf = async (action: string, params: Record<string, unknown>): Promise<InputStep[]> => {
    const result = await client.send("script.evaluate", {
      expression: `globalThis.__webbrainCall(${JSON.stringify(action)}, ${JSON.stringify(JSON.stringify({ ...params, mode: "resolve" }))}, false)`,
      awaitPromise: true,
      target: { context: tab, sandbox: PAGE_SANDBOX },
      resultOwnership: "none",
    });
    if (result.type !== "success" || result.result.type !== "string")
      throw new Error(`bench: the resolve call failed: ${JSON.stringify(result)}`);
    // A resolve answer's plan is in its runner part (@webbrain/protocol page-answer.ts).
    return (JSON.parse(result.result.value) as { runner: { plan: InputStep[] } }).runner.plan;
  };
  const press = (steps: InputStep[]) => async () => {
    for (const step of steps)
      await client.send("input.performActions", { context: tab, actions: stepSources(step) });
  };
  const step = (name: string, args: Record<string, unknown>) => async () => {
    const answer = await runner.call(name, args);
    if (answer.result.success !== true) throw new Error(`bench: ${name} failed: ${answer.text}`);
  };
  const portOnly = (name: string, args: Record<string, unknown>) => async () => {
    const result = await port.pageAction(tab, name as PageActionName, args);
    if (result.success !== true) throw new Error(`bench: ${name} failed: ${String(result.error)}`);
  };
  const emptyCall = () =>
    client.send("script.evaluate", {
      expression: "1",
      awaitPromise: false,
      target: { context: tab, sandbox: PAGE_SANDBOX },
    });
  const floor = (steps: InputStep[]) => async () => {
    await emptyCall();
    await press(steps)();
    await emptyCall();
  };
  const commandsOf = async (run: () => Promise<unknown>): Promise<number> => {
    let sent = 0;
    const off = client.onCommandSent(() => sent++);
    try {
      await run();
    } finally {
      off();
    }
    return sent;
  };

  const rows: {
    name: string;
    step: number;
    port: number;
    floor: number;
    bare: number;
    commands: number;
    pressCommands: number;
  }[] = [];
  const row = async (name: string, tool: string, args: Record<string, unknown>, plan: InputStep[]) => {
    const [stepMs, portMs, floorMs, bareMs] = await medianOfInterleaved([
      step(tool, args),
      portOnly(tool, args),
      floor(plan),
      press(plan),
    ]);
    rows.push({
      name,
      step: stepMs!,
      port: portMs!,
      floor: floorMs!,
      bare: bareMs!,
      commands: await commandsOf(step(tool, args)),
      pressCommands: await commandsOf(press(plan)),
    });
  };
  await row("click_ax", "click_ax", { ref_id: button }, await planOf("click_ax", { ref_id: button }));
  const typeArgs = { ref_id: field, value: "SAVE10" };
  await row("type_ax (6 chars)", "type_ax", typeArgs, await planOf("type_ax", typeArgs));

  console.log(
    `webbrain executor-step bench: ${ITERATIONS} interleaved iterations after ${WARMUP} warm-up, ${connection.description}`,
  );
  console.log(
    ["step".padEnd(18), "step med".padStart(11), "port".padStart(11), "floor".padStart(11)]
      .concat([
        "bare press".padStart(11),
        "ratio".padStart(8),
        "floor x".padStart(9),
        "step/floor".padStart(11),
      ])
      .concat(["cmds/step".padStart(11), "cmds/press".padStart(11)])
      .join(""),
  );
  for (const r of rows) {
    console.log(
      [
        r.name.padEnd(18),
        `${r.step.toFixed(2)} ms`.padStart(11),
        `${r.port.toFixed(2)} ms`.padStart(11),
        `${r.floor.toFixed(2)} ms`.padStart(11),
        `${r.bare.toFixed(2)} ms`.padStart(11),
        `${(r.step / r.bare).toFixed(2)}x`.padStart(8),
        `${(r.floor / r.bare).toFixed(2)}x`.padStart(9),
        `${(r.step / r.floor).toFixed(2)}x`.padStart(11),
        String(r.commands).padStart(11),
        String(r.pressCommands).padStart(11),
      ].join(""),
    );
  }
  const click = rows[0]!;
  const ratio = click.step / click.bare;
  console.log(
    `click_ax executor step vs bare input.performActions: ${ratio.toFixed(2)}x (target <= ${STEP_TARGET_RATIO}x): ${ratio <= STEP_TARGET_RATIO ? "MET" : "NOT MET"}`,
  );
  port.dispose();
} finally {
  await connection.close();
  await server.close();
}
