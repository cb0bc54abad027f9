/**
 * Replays a saved workflow for the workflow panel's Run button (sidebar and traces page): the
 * panel sends the workflow, its parameters and a start page; the background opens that page in
 * a new tab and replays the workflow there through the add-on's own BrowserPort (the same replay
 * the runner's `webbrain workflow run` does), answering the ReplayResult.
 *
 * Invariants:
 * - The start page passes the URL checks `navigate` has (no `javascript:` tab) before it opens.
 * - Every step goes through the executor's gates in Act mode: no Dev-only tool, and the
 *   permission gate with the add-on's "always" grants (the Store the agent uses). A capability
 *   not granted is asked on the panel's port (PermissionAsk, answered by PermissionReply); a
 *   panel that closed denies.
 * - The recipient guard's routes are the built-in ones and the user's (Settings -> Protected
 *   messaging routes), read afresh for each replay: a step that may send on one is refused.
 * - With the companion on (and BiDi in this Firefox), every step's page action goes through it,
 *   as a run's do: trusted input, decided once per replay (companion-input.ts).
 */
import {
  type BrowserPort,
  decoratePort,
  type MessagingRoute,
  type PermissionAnswer,
  type PermissionRequest,
  parseWorkflow,
  protectedDispatchStep,
  type ReplayResult,
  replayWorkflow,
  type Store,
  startUrlProblem,
  WorkflowError,
} from "@webbrain/agent";
import type { InputKind } from "@webbrain/protocol";
import { t } from "../shared/i18n.js";
import { loadProtectedRoutes } from "../shared/messaging-routes.js";
import type { RunInput } from "./companion-input.js";
import {
  finishStoppedReplay,
  type HandoverDeps,
  isHandoverMessage,
  type WorkflowHandoverAnswer,
  type WorkflowHandoverMessage,
} from "./workflow-handover.js";

export const WORKFLOW_RUN_MESSAGE = "webbrain_workflow_run";
export const WORKFLOW_PORT_NAME = "webbrain-workflow";
export const WORKFLOW_PERMISSION_ASK = "webbrain_workflow_permission";
export const WORKFLOW_PERMISSION_REPLY = "webbrain_workflow_permission_reply";

export interface WorkflowRunMessage {
  type: typeof WORKFLOW_RUN_MESSAGE;
  /** The workflow file's text. */
  workflow: string;
  params: Record<string, string>;
  /** Start page ("" = the workflow's recorded one). */
  url: string;
}

/** The background asks the panel whether a step may use a capability on an origin. */
export interface PermissionAsk {
  type: typeof WORKFLOW_PERMISSION_ASK;
  id: number;
  request: PermissionRequest;
}

export interface PermissionReply {
  type: typeof WORKFLOW_PERMISSION_REPLY;
  id: number;
  answer: PermissionAnswer;
}

/** The replay's result, with the tab it ran in (where a handover to the agent continues). */
export type WorkflowRunAnswer =
  | (ReplayResult & { tabId?: number; input?: InputKind })
  | { status: "error"; reason: string };

function isRunMessage(value: unknown): value is WorkflowRunMessage {
  const record = value as Partial<WorkflowRunMessage> | null;
  return typeof record === "object" && record !== null && record.type === WORKFLOW_RUN_MESSAGE;
}

function isReply(value: unknown): value is PermissionReply {
  const record = value as Partial<PermissionReply> | null;
  return typeof record === "object" && record !== null && record.type === WORKFLOW_PERMISSION_REPLY;
}

export interface WorkflowRunDeps {
  /** Where the permission gate keeps "always" grants (the agent's Store). */
  store: Store;
  /** Asks the person; absent: the gate allows (tests of the replay alone). */
  approver?: (request: PermissionRequest) => Promise<PermissionAnswer>;
  /** The protected messaging routes, built-in and the user's (default: read from storage.local). */
  routes?: () => Promise<readonly MessagingRoute[]>;
  /** Trusted input through the companion, or the add-on's own (absent: the add-on's own). */
  input?: () => Promise<RunInput>;
}

/**
 * Replays `message.workflow` in a new tab: the panel's Run (the tab comes to the front), or a
 * scheduled workflow job (`active: false`: the user's current tab is never taken over).
 */
export async function runWorkflow(
  port: BrowserPort,
  message: WorkflowRunMessage,
  deps: WorkflowRunDeps,
  tab: { active: boolean } = { active: true },
): Promise<WorkflowRunAnswer> {
  try {
    const workflow = parseWorkflow(message.workflow);
    const url = message.url || workflow.startUrl;
    if (!url) return { status: "error", reason: t("workflowNeedsStartPage") };
    const refused = startUrlProblem(url);
    if (refused) return { status: "error", reason: refused };
    const routes = await (deps.routes ?? (() => loadProtectedRoutes()))();
    // Refused before a tab opens; replayWorkflow's own guard still checks where each send lands.
    const blocked = protectedDispatchStep(workflow, routes);
    if (blocked) return { status: "stopped", step: blocked.step, reason: blocked.reason, completed: 0 };
    const input = await deps.input?.();
    const replayPort = input ? decoratePort(port, input.overrides) : port;
    const opened = await port.newTab(url, { active: tab.active });
    const result = await replayWorkflow(replayPort, opened.id, workflow, {
      params: message.params,
      startUrl: "",
      mode: "act",
      routes,
      store: deps.store,
      ...(deps.approver ? { approver: deps.approver } : {}),
    });
    return { ...result, tabId: Number(opened.id), ...(input ? { input: input.kind } : {}) };
  } catch (error) {
    const reason = error instanceof WorkflowError || error instanceof Error ? error.message : String(error);
    return { status: "error", reason };
  }
}

/** An approver that asks the panel on `connected`; a panel that is gone denies. */
function panelApprover(connected: browser.runtime.Port): WorkflowRunDeps["approver"] {
  let next = 0;
  const waiting = new Map<number, (answer: PermissionAnswer) => void>();
  connected.onMessage.addListener((message) => {
    if (!isReply(message)) return;
    waiting.get(message.id)?.(message.answer);
    waiting.delete(message.id);
  });
  connected.onDisconnect.addListener(() => {
    for (const resolve of waiting.values()) resolve("deny");
    waiting.clear();
  });
  return (request) =>
    new Promise<PermissionAnswer>((resolve) => {
      const id = ++next;
      waiting.set(id, resolve);
      const ask: PermissionAsk = { type: WORKFLOW_PERMISSION_ASK, id, request };
      try {
        connected.postMessage(ask);
      } catch {
        waiting.delete(id);
        resolve("deny");
      }
    });
}

/** Posts to the panel while it is there; a panel that closed misses the news, not the repair. */
function postIfOpen(connected: browser.runtime.Port, answer: WorkflowHandoverAnswer): void {
  try {
    connected.postMessage(answer);
  } catch {
    // The panel closed: the repair was saved (or not) all the same.
  }
}

function answerHandover(
  connected: browser.runtime.Port,
  deps: HandoverDeps,
  message: WorkflowHandoverMessage,
): void {
  void finishStoppedReplay(deps, message, () => postIfOpen(connected, { status: "started" })).then((answer) =>
    postIfOpen(connected, answer),
  );
}

/**
 * Answers the panel's Run requests on their own runtime port (WORKFLOW_PORT_NAME): a replay
 * takes seconds, and runtime.sendMessage would be answered first by the router, which replies
 * to every message at once. "Let the agent finish" (`handover`) comes on the same port: the
 * agent's run takes longer still, and the panel is told when it started and how it ended.
 */
export function installWorkflowRunner(
  port: BrowserPort,
  store: Store,
  handover?: HandoverDeps,
  input?: () => Promise<RunInput>,
): void {
  browser.runtime.onConnect.addListener((connected) => {
    if (connected.name !== WORKFLOW_PORT_NAME) return;
    const approver = panelApprover(connected);
    connected.onMessage.addListener((message) => {
      if (handover && isHandoverMessage(message)) {
        answerHandover(connected, handover, message);
        return;
      }
      if (!isRunMessage(message)) return;
      void runWorkflow(port, message, {
        store,
        ...(approver ? { approver } : {}),
        ...(input ? { input } : {}),
      }).then((answer) => connected.postMessage(answer));
    });
  });
}
