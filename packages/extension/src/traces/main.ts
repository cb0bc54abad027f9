/**
 * The traces page: recorded runs (TraceStore in IndexedDB) with search and filters (site,
 * outcome, date), a run's timeline with expandable steps, export/import of trace files
 * (versioned JSON lines, the runner's `--trace` format), delete; saving a run as a workflow;
 * saved workflows with their parameters and a Run button (replayed by the background page).
 * Also the recording settings and the API shortcut observer switch. Strings: the i18n table
 * (shared/ui-strings.ts); the page's fixed labels carry data-i18n keys.
 */
import {
  parseTrace,
  parseWorkflow,
  serializeTrace,
  serializeWorkflow,
  type TraceSummary,
  traceTimeline,
  type Workflow,
  workflowFromTrace,
} from "@webbrain/agent";
import { API_OBSERVER_KEY, apiObserverEnabled } from "../background/api-observer-webrequest.js";
import { TRACE_SETTINGS_KEY, TraceStore, traceSettingsFrom } from "../background/trace-store.js";
import {
  WORKFLOW_PORT_NAME,
  WORKFLOW_RUN_MESSAGE,
  type WorkflowRunAnswer,
  type WorkflowRunMessage,
} from "../background/workflow-runner.js";
import { localizeDocument, t, type UiKey } from "../shared/i18n.js";

const WORKFLOWS_KEY = "workflows";
const MB = 1024 * 1024;

/** A run's outcome (the agent's RunStatus, or "unfinished") in the user's language. */
const OUTCOME_LABELS: Record<string, UiKey> = {
  done: "outcomeDone",
  answered: "outcomeAnswered",
  clarify: "outcomeClarify",
  step_limit: "outcomeStepLimit",
  stopped: "outcomeStopped",
  aborted: "outcomeAborted",
  plan_rejected: "outcomePlanRejected",
  error: "outcomeError",
  unfinished: "outcomeUnfinished",
};

function outcomeLabel(outcome: string): string {
  const key = OUTCOME_LABELS[outcome];
  return key ? t(key) : outcome;
}

const store = new TraceStore();
let summaries: (TraceSummary & { bytes: number })[] = [];
let selected: string | undefined;

function $(id: string): HTMLElement {
  const el = document.getElementById(id);
  if (!el) throw new Error(`traces.html lacks #${id}`);
  return el;
}
const input = (id: string) => $(id) as HTMLInputElement;
const select = (id: string) => $(id) as HTMLSelectElement;

function when(iso: string): string {
  return new Date(iso).toLocaleString();
}

function option(value: string, label: string): HTMLOptionElement {
  const el = document.createElement("option");
  el.value = value;
  el.textContent = label;
  return el;
}

function refillSelect(id: string, anyLabel: string, values: string[], label = (v: string) => v): void {
  const el = select(id);
  const current = el.value;
  el.replaceChildren(option("", anyLabel), ...[...new Set(values)].sort().map((v) => option(v, label(v))));
  el.value = values.includes(current) ? current : "";
}

async function refreshList(): Promise<void> {
  summaries = await store.list();
  refillSelect("site", t("tracesAnySite"), summaries.map((s) => s.site).filter(Boolean));
  refillSelect(
    "outcome",
    t("tracesAnyOutcome"),
    summaries.map((s) => s.outcome),
    outcomeLabel,
  );
  renderList();
}

function renderList(): void {
  const term = input("search").value.trim().toLowerCase();
  const site = select("site").value;
  const outcome = select("outcome").value;
  const since = input("since").value ? Date.parse(input("since").value) : undefined;
  const shown = summaries.filter(
    (s) =>
      (!term || s.task.toLowerCase().includes(term) || s.url.toLowerCase().includes(term)) &&
      (!site || s.site === site) &&
      (!outcome || s.outcome === outcome) &&
      (since === undefined || Date.parse(s.startedAt) >= since),
  );
  $("empty").hidden = summaries.length > 0;
  $("list").replaceChildren(
    ...shown.map((s) => {
      const li = document.createElement("li");
      li.className = s.outcome === "done" || s.outcome === "answered" ? "outcome-done" : "outcome-other";
      li.dataset.runId = s.runId;
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = t(
        "tracesRow",
        s.task,
        s.site || t("tracesNoSite"),
        when(s.startedAt),
        outcomeLabel(s.outcome),
      );
      button.addEventListener("click", () => void showTrace(s.runId));
      li.append(button);
      return li;
    }),
  );
}

async function showTrace(runId: string): Promise<void> {
  const trace = await store.get(runId);
  if (!trace) return;
  selected = runId;
  const s = trace.summary;
  $("detail").hidden = false;
  $("detail-title").textContent = s.task;
  $("detail-meta").textContent = t(
    "tracesMeta",
    s.site || t("tracesNoSite"),
    when(s.startedAt),
    outcomeLabel(s.outcome),
    s.toolCalls,
    s.tokens.input,
    s.tokens.output,
  );
  $("timeline").replaceChildren(
    ...traceTimeline(trace.records).map((step) => {
      const li = document.createElement("li");
      li.className = `step step-${step.kind}${step.ok ? "" : " failed"}`;
      const details = document.createElement("details");
      const summary = document.createElement("summary");
      summary.textContent = `+${(step.offsetMs / 1000).toFixed(1)}s ${step.title}`;
      details.append(summary);
      if (step.detail) {
        const pre = document.createElement("pre");
        pre.textContent = step.detail;
        details.append(pre);
      }
      for (const image of step.images) {
        const img = document.createElement("img");
        img.src = `data:${image.mimeType};base64,${image.dataBase64}`;
        img.alt = step.title;
        details.append(img);
      }
      li.append(details);
      return li;
    }),
  );
}

function download(name: string, text: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

async function readFile(el: HTMLInputElement): Promise<string | undefined> {
  const file = el.files?.[0];
  el.value = "";
  return file ? file.text() : undefined;
}

async function limitBytes(): Promise<number> {
  const stored = await browser.storage.local.get(TRACE_SETTINGS_KEY);
  return traceSettingsFrom(stored[TRACE_SETTINGS_KEY]).maxBytes;
}

async function loadWorkflows(): Promise<Workflow[]> {
  const stored = (await browser.storage.local.get(WORKFLOWS_KEY))[WORKFLOWS_KEY];
  if (!Array.isArray(stored)) return [];
  return stored.flatMap((text) => {
    try {
      return [parseWorkflow(String(text))];
    } catch {
      return [];
    }
  });
}

async function saveWorkflows(list: Workflow[]): Promise<void> {
  await browser.storage.local.set({ [WORKFLOWS_KEY]: list.map((w) => serializeWorkflow(w)) });
  await renderWorkflows();
}

function status(text: string): void {
  $("workflow-status").textContent = text;
}

function runOnBackground(message: WorkflowRunMessage): Promise<WorkflowRunAnswer> {
  return new Promise((resolve) => {
    const port = browser.runtime.connect({ name: WORKFLOW_PORT_NAME });
    port.onMessage.addListener((answer) => {
      resolve(answer as WorkflowRunAnswer);
      port.disconnect();
    });
    port.postMessage(message);
  });
}

async function renderWorkflows(): Promise<void> {
  const list = await loadWorkflows();
  $("workflow-list").replaceChildren(
    ...list.map((workflow, index) => {
      const li = document.createElement("li");
      li.className = "workflow";
      const name = document.createElement("strong");
      name.textContent = workflow.name;
      li.append(name);
      const fields = new Map<string, HTMLInputElement>();
      for (const param of workflow.params) {
        const label = document.createElement("label");
        const field = document.createElement("input");
        field.name = param.name;
        field.value = param.default;
        label.append(`${param.name} (${param.field}) `, field);
        fields.set(param.name, field);
        li.append(label);
      }
      const startLabel = document.createElement("label");
      const start = document.createElement("input");
      start.name = "start-url";
      start.value = workflow.startUrl;
      startLabel.append(`${t("workflowStartPage")} `, start);
      li.append(startLabel);
      const run = document.createElement("button");
      run.type = "button";
      run.className = "run";
      run.textContent = t("workflowRun");
      run.addEventListener("click", async () => {
        status(t("workflowReplaying", workflow.name));
        const params = Object.fromEntries([...fields].map(([key, field]) => [key, field.value]));
        const answer = await runOnBackground({
          type: WORKFLOW_RUN_MESSAGE,
          workflow: serializeWorkflow(workflow),
          params,
          url: start.value.trim(),
        });
        status(
          answer.status === "done"
            ? t("workflowReplayed", workflow.name, answer.steps)
            : answer.status === "stopped"
              ? t("workflowStopped", answer.step, answer.reason)
              : answer.reason,
        );
      });
      const save = document.createElement("button");
      save.type = "button";
      save.textContent = t("workflowDownload");
      save.addEventListener("click", () =>
        download(
          `${workflow.name.replace(/[^\w-]+/g, "-")}.workflow.json`,
          serializeWorkflow(workflow),
          "application/json",
        ),
      );
      const remove = document.createElement("button");
      remove.type = "button";
      remove.textContent = t("removeButton");
      remove.addEventListener("click", async () => saveWorkflows(list.filter((_, i) => i !== index)));
      li.append(run, save, remove);
      return li;
    }),
  );
}

async function initSettings(): Promise<void> {
  const stored = await browser.storage.local.get([TRACE_SETTINGS_KEY, API_OBSERVER_KEY]);
  const settings = traceSettingsFrom(stored[TRACE_SETTINGS_KEY]);
  input("record").checked = settings.enabled;
  input("limit").value = String(Math.round(settings.maxBytes / MB));
  const observing = apiObserverEnabled(stored[API_OBSERVER_KEY]);
  input("observer").checked = observing;
  $("observer-on").hidden = !observing;
  const saveSettings = () =>
    browser.storage.local.set({
      [TRACE_SETTINGS_KEY]: {
        enabled: input("record").checked,
        maxBytes: Math.max(1, Number(input("limit").value) || 1) * MB,
      },
    });
  input("record").addEventListener("change", () => void saveSettings());
  input("limit").addEventListener("change", () => void saveSettings());
  input("observer").addEventListener("change", () => {
    $("observer-on").hidden = !input("observer").checked;
    void browser.storage.local.set({ [API_OBSERVER_KEY]: { enabled: input("observer").checked } });
  });
}

function wire(): void {
  for (const id of ["search", "since"]) input(id).addEventListener("input", renderList);
  for (const id of ["site", "outcome"]) select(id).addEventListener("change", renderList);
  $("export").addEventListener("click", async () => {
    const trace = selected ? await store.get(selected) : undefined;
    if (trace)
      download(`webbrain-trace-${trace.runId}.jsonl`, serializeTrace(trace.records), "application/x-ndjson");
  });
  $("delete").addEventListener("click", async () => {
    if (!selected) return;
    await store.delete(selected);
    selected = undefined;
    $("detail").hidden = true;
    await refreshList();
  });
  $("save-workflow").addEventListener("click", async () => {
    const trace = selected ? await store.get(selected) : undefined;
    if (!trace) return;
    try {
      const workflow = workflowFromTrace(trace.records);
      await saveWorkflows([...(await loadWorkflows()), workflow]);
      status(
        t(
          "workflowSaved",
          workflow.name,
          workflow.params.map((p) => p.name).join(", ") || t("workflowNoParams"),
        ),
      );
    } catch (error) {
      status((error as Error).message);
    }
  });
  input("import").addEventListener("change", async () => {
    const text = await readFile(input("import"));
    if (text === undefined) return;
    try {
      const records = parseTrace(text);
      const trace = await store.put(records, await limitBytes());
      await refreshList();
      await showTrace(trace.runId);
      status(t("traceImported", trace.summary.task));
    } catch (error) {
      status(t("traceImportFailed", (error as Error).message));
    }
  });
  input("import-workflow").addEventListener("change", async () => {
    const text = await readFile(input("import-workflow"));
    if (text === undefined) return;
    try {
      await saveWorkflows([...(await loadWorkflows()), parseWorkflow(text)]);
    } catch (error) {
      status(t("traceImportFailed", (error as Error).message));
    }
  });
}

localizeDocument(document);
wire();
// data-ready tells a test (and a person's script) the page has its data and listeners.
void Promise.all([initSettings(), refreshList(), renderWorkflows()]).then(() => {
  document.body.dataset.ready = "1";
});
