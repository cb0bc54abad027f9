/**
 * The saved-workflow UI that the sidebar and the traces page share (one implementation):
 * - the save form: a finished run's trace turned into a workflow (@webbrain/agent
 *   workflowFromTrace), where the user names the workflow and each input (every value typed in
 *   the run becomes one);
 * - the list: each saved workflow with its inputs, a start page, Run (replayed by the
 *   background page in a new tab), Schedule (in the sidebar: a workflow job of its tab, replayed
 *   later, maybe again and again, with the inputs as filled in now), Download and Remove; when a
 *   replay stops on a step it cannot match or verify, a button lets the user allow the agent to
 *   finish the task from there.
 * An imported workflow is marked as not approved: its first Run shows its steps and runs only
 * once the user approves them. A step that needs a permission the user has not granted always
 * asks here (Allow once / Allow always / Deny), as the agent's runs ask in the sidebar. A secret
 * input (a password typed in the recorded run) is never saved: it is a password field the user
 * fills for each run.
 */
import {
  describeSteps,
  type PermissionAnswer,
  serializeWorkflow,
  type TraceRecord,
  type Workflow,
  WorkflowError,
  workflowFromTrace,
} from "@webbrain/agent";
import {
  WORKFLOW_HANDOVER_MESSAGE,
  type WorkflowHandoverAnswer,
  type WorkflowHandoverMessage,
} from "../background/workflow-handover.js";
import {
  type PermissionAsk,
  type PermissionReply,
  WORKFLOW_PERMISSION_ASK,
  WORKFLOW_PERMISSION_REPLY,
  WORKFLOW_PORT_NAME,
  WORKFLOW_RUN_MESSAGE,
  type WorkflowRunAnswer,
  type WorkflowRunMessage,
} from "../background/workflow-runner.js";
import { element } from "../shared/element.js";
import { t } from "../shared/i18n.js";
import {
  addWorkflow,
  approveWorkflow,
  loadSavedWorkflows,
  removeWorkflow,
  type SavedWorkflow,
} from "./workflow-library.js";
import { showScheduleForm } from "./workflow-schedule-form.js";
import { versionsToggle } from "./workflow-versions.js";

export type StatusLine = (text: string) => void;

/** Offers `text` as a file download named `name` (export buttons). */
export function downloadText(name: string, text: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

function messageOf(error: unknown): string {
  return error instanceof WorkflowError || error instanceof Error ? error.message : String(error);
}

/**
 * Shows the save form for a run in `container`: the workflow's name, then one name field per
 * value the run typed. Save stores the workflow and calls `onSaved`. A run that cannot become a
 * workflow (not finished, nothing done on the page) says why on the status line instead.
 */
export function showSaveForm(
  container: HTMLElement,
  records: readonly TraceRecord[],
  status: StatusLine,
  onSaved: (workflow: Workflow) => void | Promise<void>,
): void {
  let draft: Workflow;
  try {
    draft = workflowFromTrace(records);
  } catch (error) {
    container.replaceChildren();
    status(messageOf(error));
    return;
  }
  const form = element("form", { className: "workflow-save" });
  const name = element("input", { name: "workflow-name", value: draft.name });
  form.append(element("label", { textContent: `${t("workflowNameLabel")} ` }));
  form.lastElementChild?.append(name);
  form.append(element("p", { className: "hint", textContent: t("workflowParamsHint") }));
  for (const param of draft.params.filter((p) => p.secret)) {
    form.append(
      element("p", { className: "secret-param", textContent: t("workflowSecretParamLabel", param.field) }),
    );
  }
  const fields = draft.params
    .filter((param) => !param.secret)
    .map((param) => {
      const field = element("input", { name: "param", value: param.name });
      field.dataset.value = param.default;
      const label = element("label", {
        textContent: `${t("workflowParamLabel", param.field, param.default)} `,
      });
      label.append(field);
      form.append(label);
      return field;
    });
  const save = element("button", {
    type: "submit",
    className: "primary",
    textContent: t("workflowSaveButton"),
  });
  form.append(save);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const names = fields.map((field) => field.value.trim());
    const duplicate = names.find((n, i) => names.indexOf(n) !== i);
    if (duplicate !== undefined) {
      status(t("workflowParamTwice", duplicate));
      return;
    }
    const paramNames = Object.fromEntries(fields.map((field, i) => [names[i], field.dataset.value ?? ""]));
    void (async () => {
      try {
        const workflow = workflowFromTrace(records, { name: name.value, paramNames });
        await addWorkflow(workflow);
        container.replaceChildren();
        status(
          t(
            "workflowSaved",
            workflow.name,
            workflow.params.map((p) => p.name).join(", ") || t("workflowNoInputs"),
          ),
        );
        await onSaved(workflow);
      } catch (error) {
        status(messageOf(error));
      }
    })();
  });
  container.replaceChildren(form);
  name.focus();
}

function isPermissionAsk(value: unknown): value is PermissionAsk {
  return (value as Partial<PermissionAsk> | null)?.type === WORKFLOW_PERMISSION_ASK;
}

/** Runs the replay in the background; `ask` answers the permission questions it sends. */
function runOnBackground(
  message: WorkflowRunMessage,
  ask: (question: PermissionAsk) => Promise<PermissionAnswer>,
): Promise<WorkflowRunAnswer> {
  return new Promise((resolve) => {
    const port = browser.runtime.connect({ name: WORKFLOW_PORT_NAME });
    port.onMessage.addListener((answer) => {
      if (isPermissionAsk(answer)) {
        void ask(answer).then((choice) => {
          const reply: PermissionReply = { type: WORKFLOW_PERMISSION_REPLY, id: answer.id, answer: choice };
          port.postMessage(reply);
        });
        return;
      }
      resolve(answer as WorkflowRunAnswer);
      port.disconnect();
    });
    port.postMessage(message);
  });
}

/** One question with buttons in `container`; resolves with the id of the button pressed. */
function choose(
  container: HTMLElement,
  className: string,
  lines: string[],
  choices: [string, string][],
): Promise<string> {
  return new Promise((resolve) => {
    const box = element("div", { className });
    for (const [i, line] of lines.entries()) box.append(element(i === 0 ? "p" : "li", { textContent: line }));
    for (const [id, label] of choices) {
      const button = element("button", { type: "button", className: id, textContent: label });
      button.addEventListener("click", () => {
        box.remove();
        resolve(id);
      });
      box.append(button);
    }
    container.append(box);
  });
}

/** The saved workflows as a list with their inputs and Run / Schedule / Download / Remove buttons. */
export class WorkflowListView {
  /** `ownerTab`: the tab a scheduled replay belongs to (the sidebar's); absent: no Schedule. */
  constructor(
    private readonly list: HTMLElement,
    private readonly status: StatusLine,
    private readonly ownerTab?: () => number | undefined,
  ) {}

  async render(): Promise<void> {
    const workflows = await loadSavedWorkflows();
    this.list.replaceChildren(...workflows.map((saved, index) => this.item(saved, index)));
  }

  private item(saved: SavedWorkflow, index: number): HTMLLIElement {
    const { workflow } = saved;
    let approved = saved.approved;
    const li = element("li", { className: "workflow" });
    li.append(element("strong", { textContent: workflow.name }));
    const unapproved = element("p", { className: "unapproved", textContent: t("workflowUnapproved") });
    if (!approved) li.append(unapproved);
    const fields = new Map<string, HTMLInputElement>();
    for (const param of workflow.params) {
      // A secret is never stored: the user types it for each run, unseen.
      const field = param.secret
        ? element("input", { name: param.name, type: "password", value: "", autocomplete: "off" })
        : element("input", { name: param.name, value: param.default });
      const label = element("label", { textContent: `${param.name} (${param.field}) ` });
      label.append(field);
      fields.set(param.name, field);
      li.append(label);
    }
    const start = element("input", { name: "start-url", value: workflow.startUrl });
    const startLabel = element("label", { textContent: `${t("workflowStartPage")} ` });
    startLabel.append(start);
    li.append(startLabel);
    const valuesGiven = (): Record<string, string> | undefined => {
      const params = Object.fromEntries([...fields].map(([key, field]) => [key, field.value]));
      const missing = workflow.params.find((p) => p.secret && !params[p.name]);
      if (!missing) return params;
      this.status(t("workflowNeedsSecret", missing.name));
      return undefined;
    };
    /** An imported workflow's steps are shown and approved before it first runs or is scheduled. */
    const approvedNow = async (button: HTMLButtonElement): Promise<boolean> => {
      if (approved) return true;
      button.disabled = true;
      const choice = await choose(
        li,
        "workflow-approval",
        [
          t("workflowApproveHeading", workflow.steps.length, workflow.name),
          ...describeSteps(workflow),
          `${t("workflowStartPage")}: ${start.value.trim() || workflow.startUrl}`,
        ],
        [
          ["approve", t("workflowApproveRun")],
          ["cancel", t("workflowApproveCancel")],
        ],
      );
      button.disabled = false;
      if (choice !== "approve") return false;
      await approveWorkflow(index);
      approved = true;
      unapproved.remove();
      return true;
    };
    const run = element("button", { type: "button", className: "run", textContent: t("workflowRun") });
    run.addEventListener("click", () => {
      const params = valuesGiven();
      if (!params) return;
      void (async () => {
        if (await approvedNow(run)) await this.run(li, workflow, params, start.value.trim());
      })();
    });
    li.append(run);
    const ownerTab = this.ownerTab;
    if (ownerTab) {
      const schedule = element("button", {
        type: "button",
        className: "schedule",
        textContent: t("workflowSchedule"),
      });
      schedule.addEventListener("click", () => {
        if (li.querySelector("form.workflow-schedule")) return;
        void (async () => {
          if (await approvedNow(schedule))
            showScheduleForm(li, {
              workflow,
              values: valuesGiven,
              url: () => start.value.trim(),
              ownerTab,
              status: this.status,
            });
        })();
      });
      li.append(schedule);
    }
    const download = element("button", { type: "button", textContent: t("workflowDownload") });
    download.addEventListener("click", () =>
      downloadText(
        `${workflow.name.replace(/[^\w-]+/g, "-")}.workflow.json`,
        serializeWorkflow(workflow),
        "application/json",
      ),
    );
    const remove = element("button", { type: "button", textContent: t("workflowRemove") });
    remove.addEventListener("click", () => void removeWorkflow(index).then(() => this.render()));
    li.append(download, remove);
    const versions = versionsToggle(li, workflow);
    if (versions) li.append(versions);
    return li;
  }

  private async run(
    li: HTMLLIElement,
    workflow: Workflow,
    params: Record<string, string>,
    url: string,
  ): Promise<void> {
    li.querySelector("button.handover")?.remove();
    this.status(t("workflowRunning", workflow.name));
    const answer = await runOnBackground(
      { type: WORKFLOW_RUN_MESSAGE, workflow: serializeWorkflow(workflow), params, url },
      async ({ request }) => {
        const choice = await choose(
          li,
          "workflow-permission",
          [t("permissionPromptTitle", request.capability, request.origin), request.detail],
          [
            ["once", t("allowOnce")],
            ["always", t("allowAlways")],
            ["deny", t("deny")],
          ],
        );
        return choice === "once" || choice === "always" ? choice : "deny";
      },
    );
    if (answer.status === "done") {
      this.status(t("workflowReplayDone", answer.steps, workflow.name));
      return;
    }
    if (answer.status === "error") {
      this.status(answer.reason);
      return;
    }
    this.status(stoppedText(answer));
    // A step could not be matched or verified: the user may let the agent finish from there.
    if (answer.step === 0 || answer.tabId === undefined) return;
    const tabId = answer.tabId;
    const handover = element("button", {
      type: "button",
      className: "handover",
      textContent: t("workflowHandoverButton"),
    });
    handover.addEventListener("click", () => {
      handover.remove();
      void this.handOver(workflow, {
        type: WORKFLOW_HANDOVER_MESSAGE,
        tabId,
        workflow: serializeWorkflow(workflow),
        params,
        stopped: { step: answer.step, reason: answer.reason, completed: answer.completed },
      });
    });
    li.append(handover);
  }

  /**
   * The agent finishes the stopped replay in its tab; when it is done, its steps are the saved
   * workflow's next version (background/workflow-handover.ts) and the list shows it.
   */
  private async handOver(workflow: Workflow, message: WorkflowHandoverMessage): Promise<void> {
    const answer = await handOverOnBackground(message, () =>
      this.status(t("workflowHandoverStarted", workflow.name)),
    );
    if (answer.status === "saved") {
      await this.render();
      this.status(t("workflowRepairSaved", workflow.name, answer.version, answer.step));
    } else if (answer.status === "not_saved") {
      this.status(t("workflowRepairNotSaved", workflow.name, answer.reason));
    } else if (answer.status === "error") {
      this.status(answer.reason);
    }
  }
}

/** Why the replay stopped, and whether the step that failed is one a repair already wrote. */
function stoppedText(answer: Extract<WorkflowRunAnswer, { status: "stopped" }>): string {
  const stopped = t("workflowReplayStopped", answer.step, answer.reason);
  if (answer.repairedIn === undefined) return stopped;
  return `${stopped} ${t("workflowRepairedStepFailsAgain", answer.step, answer.repairedIn)}`;
}

/**
 * "Let the agent finish" on the workflow port: `onStarted` once the agent's run is under way;
 * resolves with how it ended (a panel closed before then misses the answer, not the repair).
 */
function handOverOnBackground(
  message: WorkflowHandoverMessage,
  onStarted: () => void,
): Promise<WorkflowHandoverAnswer> {
  return new Promise((resolve) => {
    const port = browser.runtime.connect({ name: WORKFLOW_PORT_NAME });
    port.onMessage.addListener((raw) => {
      const answer = raw as WorkflowHandoverAnswer;
      if (answer.status === "started") {
        onStarted();
        return;
      }
      resolve(answer);
      port.disconnect();
    });
    port.postMessage(message);
  });
}
