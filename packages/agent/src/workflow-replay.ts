/**
 * Deterministic replay of a saved workflow, without a model: each step reads the page, finds
 * its target again by what it was (workflow-target.ts), acts through the BrowserPort, and checks
 * the effect the step had when recorded. The first step that cannot be matched, fails or does not
 * have its effect stops the replay, and the result says which step and why.
 *
 * Invariants:
 * - A workflow cannot inherit a planner recipient target: if any step that may dispatch a
 *   message ran on a protected messaging route, nothing is replayed at all.
 * - Replay never guesses: an ambiguous target is a stop, not a pick.
 */
import type { BrowserPort, PageActionName, PageResult } from "./browser-port.js";
import { isPotentialDispatch, type MessagingRoute, matchMessagingRoute } from "./recipient-guard.js";
import { fillPlaceholders, resolveParams, type Workflow, type WorkflowStep } from "./workflow-format.js";
import { findTarget, formatTarget } from "./workflow-target.js";

export interface ReplayOptions {
  params?: Record<string, string>;
  /** Open this page first instead of the workflow's startUrl ("" = stay on the current page). */
  startUrl?: string;
  /** Protected messaging routes (default: the built-in list). */
  routes?: readonly MessagingRoute[];
  signal?: AbortSignal;
  onStep?: (index: number, step: WorkflowStep, outcome: "ok" | "stopped", detail: string) => void;
}

export type ReplayResult =
  | { status: "done"; steps: number }
  | {
      status: "stopped";
      /** 1-based number of the step that stopped the replay (0: before any step ran). */
      step: number;
      reason: string;
      /** Steps that ran and were verified before the stop. */
      completed: number;
    };

function text(value: unknown): string {
  return typeof value === "string"
    ? value
    : value === undefined || value === null
      ? ""
      : JSON.stringify(value);
}

function fill(args: Record<string, unknown>, values: Record<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args)) {
    out[key] = typeof value === "string" ? fillPlaceholders(value, values) : value;
  }
  return out;
}

/** A step that stops the replay before it starts, or undefined. */
export function protectedDispatchStep(
  workflow: Workflow,
  routes?: readonly MessagingRoute[],
): { step: number; reason: string } | undefined {
  for (let i = 0; i < workflow.steps.length; i++) {
    const step = workflow.steps[i]!;
    const route = matchMessagingRoute(step.url, routes);
    if (route && isPotentialDispatch(step.tool, step.args, step.target)) {
      return {
        step: i + 1,
        reason: `step ${i + 1} (${step.tool}${step.target ? ` on ${formatTarget(step.target)}` : ""}) may send a message on ${route.label}, a protected messaging route. A workflow cannot inherit a recipient: run it as an Act task that names the recipient.`,
      };
    }
  }
  return undefined;
}

export async function replayWorkflow(
  port: BrowserPort,
  tabId: string,
  workflow: Workflow,
  options: ReplayOptions = {},
): Promise<ReplayResult> {
  const values = resolveParams(workflow, options.params ?? {});
  const blocked = protectedDispatchStep(workflow, options.routes);
  if (blocked) return { status: "stopped", step: blocked.step, reason: blocked.reason, completed: 0 };
  const startUrl = options.startUrl ?? workflow.startUrl;
  if (startUrl) {
    const opened = await port.navigate(tabId, startUrl);
    if (opened.success === false) {
      return {
        status: "stopped",
        step: 0,
        reason: `could not open ${startUrl}: ${text(opened.error)}`,
        completed: 0,
      };
    }
  }
  for (let i = 0; i < workflow.steps.length; i++) {
    if (options.signal?.aborted)
      return { status: "stopped", step: i + 1, reason: "stopped by the user", completed: i };
    const step = workflow.steps[i]!;
    const problem = await runStep(port, tabId, step, values);
    if (problem) {
      options.onStep?.(i, step, "stopped", problem);
      return { status: "stopped", step: i + 1, reason: problem, completed: i };
    }
    options.onStep?.(i, step, "ok", "");
  }
  return { status: "done", steps: workflow.steps.length };
}

/** Runs one step; answers why it failed, or undefined when it did what it did when recorded. */
async function runStep(
  port: BrowserPort,
  tabId: string,
  step: WorkflowStep,
  values: Record<string, string>,
): Promise<string | undefined> {
  const args = fill(step.args, values);
  switch (step.tool) {
    case "navigate": {
      const result = await port.navigate(tabId, text(args.url));
      return result.success === false
        ? `navigate to ${text(args.url)} failed: ${text(result.error)}`
        : undefined;
    }
    case "go_back":
    case "go_forward": {
      const result = step.tool === "go_back" ? await port.goBack(tabId) : await port.goForward(tabId);
      return result.success === false ? `${step.tool} failed: ${text(result.error)}` : undefined;
    }
    default:
      break;
  }
  if (step.target) {
    const tree = await port.pageAction(tabId, "get_accessibility_tree", {});
    if (typeof tree.tree !== "string") return `could not read the page: ${text(tree.error)}`;
    const match = findTarget(tree.tree, step.target);
    if (!match.ok) return `the page no longer matches: ${match.reason}`;
    args.ref_id = Number(match.ref);
  }
  const before = step.expect?.urlChanged ? (await port.getTab(tabId).catch(() => undefined))?.url : undefined;
  let result: PageResult;
  try {
    result = await port.pageAction(tabId, step.tool as PageActionName, args);
  } catch (error) {
    return `${step.tool} could not run: ${(error as Error).message}`;
  }
  if (result.success === false) return `${step.tool} failed: ${text(result.error)}`;
  const problem = await verify(port, tabId, step, result, values, before);
  if (problem) return problem;
  // A click or key may start requests (a form posting): let the page settle before the next
  // step reads it, and before a caller closes the browser after the last one.
  if (!TYPING_TOOLS.has(step.tool)) {
    await port.pageAction(tabId, "wait_for_stable", { timeout_ms: SETTLE_TIMEOUT_MS }).catch(() => undefined);
  }
  return undefined;
}

const TYPING_TOOLS: ReadonlySet<string> = new Set(["type_ax", "type_text"]);
/** How long a step waits for the page's DOM and requests to settle after acting. */
const SETTLE_TIMEOUT_MS = 5000;

async function verify(
  port: BrowserPort,
  tabId: string,
  step: WorkflowStep,
  result: PageResult,
  values: Record<string, string>,
  urlBefore: string | undefined,
): Promise<string | undefined> {
  const expect = step.expect;
  if (!expect) return undefined;
  if (expect.value !== undefined) {
    const wanted = fillPlaceholders(expect.value, values);
    if (result.verified === false) {
      return `typed ${JSON.stringify(wanted)} but the field shows ${JSON.stringify(text(result.value))}`;
    }
    return undefined;
  }
  const effect = result.effect as { changed?: unknown; changes?: unknown } | undefined;
  if (expect.urlChanged) {
    const navigated =
      Array.isArray(effect?.changes) && effect.changes.some((c) => String(c).startsWith("url changed"));
    if (navigated) return undefined;
    const after = await port.waitForNavigation?.(tabId, 5000).catch(() => undefined);
    const now = (await port.getTab(tabId).catch(() => undefined))?.url;
    if (after?.success === false && now === urlBefore)
      return "the page did not navigate as it did when recorded";
    return undefined;
  }
  if (expect.changed && effect && effect.changed !== true) {
    return "the action had no visible effect, where the recorded run saw one";
  }
  return undefined;
}

function describeStep(step: WorkflowStep, number: number, values: Record<string, string>): string {
  const where = step.target ? ` on ${formatTarget(step.target)}` : "";
  return `${number}. ${step.tool}${where} ${JSON.stringify(fill(step.args, values))}`;
}

/**
 * What an agent asked to finish a stopped replay is told (only when the user allows it): the
 * workflow's goal (the recorded run's task), the steps replay already did on this page (so the
 * agent does not do them twice), where and why it stopped, and the steps that remained with the
 * values to use. The runner (`workflow run --handover`) and the add-on both start the agent with it.
 */
export function handoverTask(
  workflow: Workflow,
  stopped: Extract<ReplayResult, { status: "stopped" }>,
  params: Record<string, string> = {},
): string {
  const values = resolveParams(workflow, params);
  const first = Math.max(1, stopped.step);
  const done = workflow.steps
    .slice(0, Math.min(stopped.completed, first - 1))
    .map((step, i) => describeStep(step, i + 1, values));
  const rest = workflow.steps.slice(first - 1).map((step, i) => describeStep(step, first + i, values));
  return [
    `Finish the saved workflow "${workflow.name}".`,
    ...(workflow.goal ? [`Its goal (the task it was recorded from): ${workflow.goal}`] : []),
    `Its replay stopped at step ${stopped.step}: ${stopped.reason}.`,
    ...(done.length
      ? ["Already done on this page by the replay (do not repeat these):", ...done]
      : ["The replay did no step on this page yet."]),
    "The remaining recorded steps were (the page changed, so find their targets again):",
    ...rest,
  ].join("\n");
}
