/**
 * Replays a saved workflow for the traces page's Run button: the page sends the workflow, its
 * parameters and a start page; the background opens that page in a new tab and replays the
 * workflow there through the add-on's own BrowserPort (the same replay the runner's
 * `webbrain workflow run` does), answering the ReplayResult.
 */
import {
  type BrowserPort,
  parseWorkflow,
  type ReplayResult,
  replayWorkflow,
  WorkflowError,
} from "@webbrain/agent";
import { t } from "../shared/i18n.js";

export const WORKFLOW_RUN_MESSAGE = "webbrain_workflow_run";
export const WORKFLOW_PORT_NAME = "webbrain-workflow";

export interface WorkflowRunMessage {
  type: typeof WORKFLOW_RUN_MESSAGE;
  /** The workflow file's text. */
  workflow: string;
  params: Record<string, string>;
  /** Start page ("" = the workflow's recorded one). */
  url: string;
}

/** The replay's result, with the tab it ran in (where a handover to the agent continues). */
export type WorkflowRunAnswer = (ReplayResult & { tabId?: number }) | { status: "error"; reason: string };

function isRunMessage(value: unknown): value is WorkflowRunMessage {
  const record = value as Partial<WorkflowRunMessage> | null;
  return typeof record === "object" && record !== null && record.type === WORKFLOW_RUN_MESSAGE;
}

export async function runWorkflow(
  port: BrowserPort,
  message: WorkflowRunMessage,
): Promise<WorkflowRunAnswer> {
  try {
    const workflow = parseWorkflow(message.workflow);
    const url = message.url || workflow.startUrl;
    if (!url) return { status: "error", reason: t("workflowNeedsStartPage") };
    const tab = await port.newTab(url, { active: true });
    const result = await replayWorkflow(port, tab.id, workflow, { params: message.params, startUrl: "" });
    return { ...result, tabId: Number(tab.id) };
  } catch (error) {
    const reason = error instanceof WorkflowError || error instanceof Error ? error.message : String(error);
    return { status: "error", reason };
  }
}

/**
 * Answers the traces page's Run requests on their own runtime port (WORKFLOW_PORT_NAME): a
 * replay takes seconds, and runtime.sendMessage would be answered first by the router, which
 * replies to every message at once.
 */
export function installWorkflowRunner(port: BrowserPort): void {
  browser.runtime.onConnect.addListener((connected) => {
    if (connected.name !== WORKFLOW_PORT_NAME) return;
    connected.onMessage.addListener((message) => {
      if (!isRunMessage(message)) return;
      void runWorkflow(port, message).then((answer) => connected.postMessage(answer));
    });
  });
}
