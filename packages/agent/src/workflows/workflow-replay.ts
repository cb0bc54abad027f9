/**
 * Deterministic replay of a saved workflow, without a model: each step reads the page, finds
 * its target again by what it was (workflow-target.ts), acts, and checks the effect the step had
 * when recorded. The first step that cannot be matched, is refused, fails or does not have its
 * effect stops the replay, and the result says which step and why.
 *
 * Invariants:
 * - A workflow file is not trusted (it may be imported, or crafted): every step, the start page
 *   included, is a tool call through the ToolExecutor, exactly as the model's calls are: the mode
 *   gate (Act by default: no Dev-only tool such as execute_js), argument validation, the
 *   permission gate, the duplicate-submit guard and the URL checks (no `javascript:` navigation)
 *   hold. Only the loop detector is left out: a recorded sequence may repeat an action on purpose.
 * - A workflow cannot inherit a planner recipient target: if any step that may dispatch a
 *   message ran on a protected messaging route, nothing is replayed at all. A step's recorded
 *   URL is data too (a crafted file may lie), so the replay's port also goes through a
 *   recipient guard with the same routes and no pinned recipient: a send on a protected route
 *   is refused where the page really is when the step runs.
 * - Replay never guesses: an ambiguous target is a stop, not a pick.
 */
import type { ToolCall } from "@mariozechner/pi-ai";
import { type Mode, placeTreeNodes, TREE_NODES_PARAM, treeNodesOf } from "@webbrain/protocol";
import { BlockedDone } from "../guards/blocked-done.js";
import { LoopDetector, type LoopVerdict } from "../guards/loop-detector.js";
import { type PermissionApprover, PermissionGate } from "../guards/permission-gate.js";
import {
  isPotentialDispatch,
  type MessagingRoute,
  matchMessagingRoute,
  PROTECTED_MESSAGING_ROUTES,
  RecipientGuard,
} from "../guards/recipient-guard.js";
import { SECRET_PLACEHOLDER } from "../guards/secret-values.js";
import { DuplicateSubmitGuard } from "../guards/submit-guard.js";
import { newConversation } from "../loop/conversation.js";
import { MemoryStore, type Store } from "../store.js";
import type { BrowserPort, PageResult } from "../tools/browser-port.js";
import { toolSpec } from "../tools/tool-catalog.js";
import { checkNavigableUrl } from "../tools/tool-dispatch.js";
import { type RunContext, ToolExecutor, type ToolOutcome } from "../tools/tool-executor.js";
import { fillPlaceholders, resolveParams, type Workflow, type WorkflowStep } from "./workflow-format.js";
import { findTarget, formatTarget } from "./workflow-target.js";

export interface ReplayOptions {
  params?: Record<string, string>;
  /** Open this page first instead of the workflow's startUrl ("" = stay on the current page). */
  startUrl?: string;
  /** The mode the steps run in (default "act": a replay never gets Dev-only tools unasked). */
  mode?: Mode;
  /** The permission gate's approver (absent: the gate allows, as in `webbrain run` without --confirm). */
  approver?: PermissionApprover;
  /** Where the gate finds and keeps "always" grants (default: a store of this replay only). */
  store?: Store;
  /** Protected messaging routes (default: the built-in list; callers add the user's own). */
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
      /** The stopping step was written by this version's repair: it failed after a repair. */
      repairedIn?: number;
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

/**
 * Why a start page may not be opened (undefined: it may), by the URL checks `navigate` has: for
 * an embedder that opens the start page itself, in a new tab, before the replay.
 */
export function startUrlProblem(url: string): string | undefined {
  return checkNavigableUrl(url);
}

/** The loop detector's verdicts are for a model that may be stuck; a recorded file is not. */
class ReplayLoopDetector extends LoopDetector {
  override recordAction(): LoopVerdict {
    return { kind: "ok" };
  }
  override recordNavigation(): LoopVerdict {
    return { kind: "ok" };
  }
}

/** The tree read for finding targets: the whole page, as the page layer prints it. */
const REPLAY_TREE_MAX_CHARS = 1_000_000;

/** One replay's tool calls: an executor of its own and the run state it reads. */
class ReplayCalls {
  readonly #executor: ToolExecutor;
  readonly #run: RunContext;
  #next = 0;

  constructor(port: BrowserPort, tabId: string, options: ReplayOptions) {
    this.#executor = new ToolExecutor({
      port,
      gate: new PermissionGate(options.store ?? new MemoryStore(), options.approver),
      submitGuard: new DuplicateSubmitGuard(),
      blockedDone: new BlockedDone(),
    });
    this.#run = {
      conversation: newConversation(tabId, options.mode ?? "act", Date.now()),
      tier: "full",
      vision: false,
      planRequired: false,
      loop: new ReplayLoopDetector(),
      malformedStreak: 0,
      unverifiedFrames: new Set(),
      ...(options.signal ? { signal: options.signal } : {}),
    };
  }

  call(name: string, args: Record<string, unknown>): Promise<ToolOutcome> {
    const call: ToolCall = { type: "toolCall", id: `replay-${++this.#next}`, name, arguments: args };
    return this.#executor.execute(call, this.#run);
  }
}

/** Why a call failed, as its result says (the refusal or the page's error). */
function failureOf(outcome: ToolOutcome): string {
  const details = outcome.details;
  const said = details?.error ?? details?.message;
  if (typeof said === "string" && said) return said;
  return outcome.content.map((block) => (block.type === "text" ? block.text : "")).join("");
}

export async function replayWorkflow(
  unguarded: BrowserPort,
  tabId: string,
  workflow: Workflow,
  options: ReplayOptions = {},
): Promise<ReplayResult> {
  const values = resolveParams(workflow, options.params ?? {});
  const blocked = protectedDispatchStep(workflow, options.routes);
  if (blocked) return { status: "stopped", step: blocked.step, reason: blocked.reason, completed: 0 };
  // Never pinned: no recipient a replay could send to has been named by the user for it.
  const port = new RecipientGuard(options.routes ?? PROTECTED_MESSAGING_ROUTES).wrap(unguarded);
  const calls = new ReplayCalls(port, tabId, options);
  const startUrl = options.startUrl ?? workflow.startUrl;
  if (startUrl) {
    const opened = await calls.call("navigate", { url: startUrl });
    if (opened.isError) {
      return {
        status: "stopped",
        step: 0,
        reason: `could not open ${startUrl}: ${failureOf(opened)}`,
        completed: 0,
      };
    }
  }
  for (let i = 0; i < workflow.steps.length; i++) {
    if (options.signal?.aborted)
      return { status: "stopped", step: i + 1, reason: "stopped by the user", completed: i };
    const step = workflow.steps[i]!;
    const problem = await runStep(port, calls, tabId, step, values);
    if (problem) {
      options.onStep?.(i, step, "stopped", problem);
      return {
        status: "stopped",
        step: i + 1,
        reason: problem,
        completed: i,
        ...(step.repaired ? { repairedIn: step.repaired } : {}),
      };
    }
    options.onStep?.(i, step, "ok", "");
  }
  return { status: "done", steps: workflow.steps.length };
}

/** Runs one step; answers why it failed, or undefined when it did what it did when recorded. */
async function runStep(
  port: BrowserPort,
  calls: ReplayCalls,
  tabId: string,
  step: WorkflowStep,
  values: Record<string, string>,
): Promise<string | undefined> {
  const args = fill(step.args, values);
  if (step.target) {
    // Read through the executor too, so the duplicate-submit guard knows the buttons' names.
    const read = await calls.call("get_accessibility_tree", {
      max_chars: REPLAY_TREE_MAX_CHARS,
      [TREE_NODES_PARAM]: true,
    });
    const nodes = treeNodesOf(read.details);
    if (read.isError || !nodes) return `could not read the page: ${failureOf(read)}`;
    const match = findTarget(placeTreeNodes(nodes), step.target);
    if (!match.ok) return `the page no longer matches: ${match.reason}`;
    args.ref_id = Number(match.ref);
  }
  const before = step.expect?.urlChanged ? (await port.getTab(tabId).catch(() => undefined))?.url : undefined;
  const outcome = await calls.call(step.tool, args);
  const result: PageResult = outcome.details ?? { success: !outcome.isError };
  if (outcome.isError) {
    const opens = toolSpec(step.tool)?.opensUrls;
    const what = opens ? `${step.tool} to ${text(args[opens])}` : step.tool;
    return `${what} failed: ${failureOf(outcome)}`;
  }
  const problem = await verify(port, tabId, step, result, values, before);
  if (problem) return problem;
  // A click or key may start requests (a form posting): let the page settle before the next
  // step reads it, and before a caller closes the browser after the last one.
  const replay = toolSpec(step.tool)?.replay;
  if (replay !== "typing" && replay !== "navigation") {
    await port.pageAction(tabId, "wait_for_stable", { timeout_ms: SETTLE_TIMEOUT_MS }).catch(() => undefined);
  }
  return undefined;
}

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
    if (result.verified === false) {
      // A secret's text is never repeated, not even in a stop message.
      const wanted = result.secret === true ? SECRET_PLACEHOLDER : fillPlaceholders(expect.value, values);
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

/** Values to show a person or an agent: a secret parameter's as the placeholder. */
function shownValues(workflow: Workflow, values: Record<string, string>): Record<string, string> {
  const shown = { ...values };
  for (const param of workflow.params) if (param.secret) shown[param.name] = SECRET_PLACEHOLDER;
  return shown;
}

/** The steps as numbered lines, for a person approving an imported workflow. */
export function describeSteps(workflow: Workflow): string[] {
  // No values: each typed text shows as its {{parameter}}, as the file has it.
  return workflow.steps.map((step, i) => `${describeStep(step, i + 1, {})} (on ${step.url || "any page"})`);
}

/** One step as a line: its number, tool, target and arguments (with `values` filled in). */
export function describeStep(step: WorkflowStep, number: number, values: Record<string, string>): string {
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
  // The agent is not told a secret: the user gives it again if the agent must type it.
  const values = shownValues(workflow, resolveParams(workflow, params, { secretsOptional: true }));
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
