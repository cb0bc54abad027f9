/**
 * The workflow panel's Schedule form (sidebar): when (minutes from now), how often (empty:
 * once) and whether the agent may finish a replay that stops. Submitting sends
 * `wb_jobs_schedule_workflow` (scheduling/scheduler-service.ts) with the workflow's text and the
 * inputs as filled in now; the job belongs to the sidebar's tab, whose jobs list shows it.
 */
import { type ScheduledJob, serializeWorkflow, type Workflow } from "@webbrain/agent";
import type { ScheduleWorkflowRequest } from "../scheduling/scheduler-service.js";
import { element } from "../shared/element.js";
import { t } from "../shared/i18n.js";

const SECONDS_PER_MINUTE = 60;
/** The delay the form offers first: an hour. */
const DEFAULT_DELAY_MINUTES = "60";

type ScheduleReply = { ok: true; value: ScheduledJob } | { ok: false; error: string } | undefined;

export interface ScheduleFormParts {
  workflow: Workflow;
  /** The inputs as filled in (undefined: one is missing, and the status line said so). */
  values: () => Record<string, string> | undefined;
  /** The start page field ("" = the workflow's recorded one). */
  url: () => string;
  ownerTab: () => number | undefined;
  status: (text: string) => void;
}

export function showScheduleForm(li: HTMLElement, parts: ScheduleFormParts): void {
  const { workflow, status } = parts;
  const form = element("form", { className: "workflow-schedule" });
  const field = (name: string, label: string, value: string) => {
    const input = element("input", { name, type: "number", min: "0", step: "any", value });
    const wrap = element("label", { textContent: `${label} ` });
    wrap.append(input);
    form.append(wrap);
    return input;
  };
  const after = field("schedule-in", t("workflowScheduleIn"), DEFAULT_DELAY_MINUTES);
  const every = field("schedule-every", t("workflowScheduleEvery"), "");
  const handover = element("input", { name: "schedule-handover", type: "checkbox" });
  const handoverLabel = element("label");
  handoverLabel.append(handover, ` ${t("workflowScheduleHandover")}`);
  form.append(
    handoverLabel,
    element("button", { type: "submit", className: "primary", textContent: t("workflowScheduleConfirm") }),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const params = parts.values();
    if (!params) return;
    const tabId = parts.ownerTab();
    if (tabId === undefined) {
      status(t("workflowScheduleNoTab"));
      return;
    }
    const request: ScheduleWorkflowRequest = {
      type: "wb_jobs_schedule_workflow",
      tabId,
      workflow: serializeWorkflow(workflow),
      params,
      url: parts.url(),
      afterSeconds: Number(after.value || "0") * SECONDS_PER_MINUTE,
      ...(every.value.trim() ? { intervalMinutes: Number(every.value) } : {}),
      handover: handover.checked,
    };
    void (browser.runtime.sendMessage(request) as Promise<ScheduleReply>).then(
      (reply) => {
        if (!reply?.ok) {
          status(reply?.error ?? t("errorBackgroundNoAnswer", request.type));
          return;
        }
        form.remove();
        status(t("workflowScheduled", workflow.name, new Date(reply.value.nextRunAt).toLocaleString()));
      },
      (error: unknown) => status(error instanceof Error ? error.message : String(error)),
    );
  });
  li.append(form);
  after.focus();
}
