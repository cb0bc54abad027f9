/**
 * The traces page: recorded runs (TraceStore in IndexedDB) with search and filters (site,
 * outcome, date), a run's timeline with expandable steps, export/import of trace files
 * (versioned JSON lines, the runner's `--trace` format), delete; a run played back as a filmstrip
 * of its step screenshots, and exported as one HTML file; saving a run as a workflow;
 * saved workflows with their parameters and a Run button (replayed by the background page).
 * Also the recording settings and the API shortcut observer switch. Strings: the i18n table
 * (shared/ui-strings.ts); the page's fixed labels carry data-i18n keys.
 */
import {
  parseTrace,
  parseWorkflow,
  serializeTrace,
  type TraceRecord,
  type TraceSummary,
  traceFilmstripHtml,
  traceTimeline,
} from "@webbrain/agent";
import { API_OBSERVER_KEY, apiObserverEnabled } from "../background/api-observer-webrequest.js";
import {
  STEP_SHOT_KB,
  TRACE_SETTINGS_KEY,
  TraceStore,
  traceSettingsFrom,
} from "../background/trace-store.js";
import { localizeDocument, t, type UiKey } from "../shared/i18n.js";
import { addWorkflow } from "../workflows/workflow-library.js";
import { downloadText, showSaveForm, WorkflowListView } from "../workflows/workflow-panel.js";

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

/** Whether any step of a run kept its screenshot (the filmstrip is then more than captions). */
function hasStepShots(records: readonly TraceRecord[]): boolean {
  return records.some((record) => record.type === "tool_call" && record.shot !== undefined);
}

/**
 * The run as a filmstrip (agent/trace-filmstrip.ts, the renderer `webbrain trace show --html`
 * uses too), in a sandboxed frame: the page is the trace's data, so it gets no script and no
 * origin of ours; it needs none (scrubbing is radios and CSS).
 */
function playFilmstrip(records: readonly TraceRecord[]): void {
  const frame = $("filmstrip") as HTMLIFrameElement;
  frame.srcdoc = traceFilmstripHtml(records);
  frame.hidden = false;
  $("filmstrip-note").hidden = hasStepShots(records);
}

function hideFilmstrip(): void {
  const frame = $("filmstrip") as HTMLIFrameElement;
  frame.hidden = true;
  frame.removeAttribute("srcdoc");
  $("filmstrip-note").hidden = true;
}

async function showTrace(runId: string): Promise<void> {
  const trace = await store.get(runId);
  if (!trace) return;
  selected = runId;
  hideFilmstrip();
  $("workflow-save").replaceChildren();
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

async function readFile(el: HTMLInputElement): Promise<string | undefined> {
  const file = el.files?.[0];
  el.value = "";
  return file ? file.text() : undefined;
}

async function limitBytes(): Promise<number> {
  const stored = await browser.storage.local.get(TRACE_SETTINGS_KEY);
  return traceSettingsFrom(stored[TRACE_SETTINGS_KEY]).maxBytes;
}

function status(text: string): void {
  $("workflow-status").textContent = text;
}

// Saved workflows: the same list, save form and Run as the sidebar's (workflows/workflow-panel.ts).
const workflows = new WorkflowListView($("workflow-list"), status);

async function initSettings(): Promise<void> {
  const stored = await browser.storage.local.get([TRACE_SETTINGS_KEY, API_OBSERVER_KEY]);
  const settings = traceSettingsFrom(stored[TRACE_SETTINGS_KEY]);
  input("record").checked = settings.enabled;
  input("limit").value = String(Math.round(settings.maxBytes / MB));
  input("shot-kb").value = String(Math.round(settings.shotMaxBytes / 1024));
  const observing = apiObserverEnabled(stored[API_OBSERVER_KEY]);
  input("observer").checked = observing;
  $("observer-on").hidden = !observing;
  const saveSettings = () =>
    browser.storage.local.set({
      [TRACE_SETTINGS_KEY]: {
        enabled: input("record").checked,
        maxBytes: Math.max(1, Number(input("limit").value) || 1) * MB,
        shotKb: shotKbFrom(input("shot-kb").value),
      },
    });
  for (const id of ["record", "limit", "shot-kb"])
    input(id).addEventListener("change", () => void saveSettings());
  input("observer").addEventListener("change", () => {
    $("observer-on").hidden = !input("observer").checked;
    void browser.storage.local.set({ [API_OBSERVER_KEY]: { enabled: input("observer").checked } });
  });
}

/** The field's KB as stored: 0 (none) or a size within STEP_SHOT_KB. */
function shotKbFrom(value: string): number {
  const kb = Math.round(Number(value));
  return Number.isFinite(kb) && kb > 0 ? Math.min(STEP_SHOT_KB.max, Math.max(STEP_SHOT_KB.min, kb)) : 0;
}

function wire(): void {
  for (const id of ["search", "since"]) input(id).addEventListener("input", renderList);
  for (const id of ["site", "outcome"]) select(id).addEventListener("change", renderList);
  $("export").addEventListener("click", async () => {
    const trace = selected ? await store.get(selected) : undefined;
    if (trace)
      downloadText(
        `webbrain-trace-${trace.runId}.jsonl`,
        serializeTrace(trace.records),
        "application/x-ndjson",
      );
  });
  $("filmstrip-play").addEventListener("click", async () => {
    const trace = selected ? await store.get(selected) : undefined;
    if (trace) playFilmstrip(trace.records);
  });
  $("filmstrip-export").addEventListener("click", async () => {
    const trace = selected ? await store.get(selected) : undefined;
    if (trace)
      downloadText(`webbrain-filmstrip-${trace.runId}.html`, traceFilmstripHtml(trace.records), "text/html");
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
    showSaveForm($("workflow-save"), trace.records, status, () => workflows.render());
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
      // A file from anywhere: its steps are shown for approval before its first run.
      await addWorkflow(parseWorkflow(text), undefined, false);
      await workflows.render();
    } catch (error) {
      status(t("traceImportFailed", (error as Error).message));
    }
  });
}

localizeDocument(document);
wire();
// data-ready tells a test (and a person's script) the page has its data and listeners.
void Promise.all([initSettings(), refreshList(), workflows.render()]).then(() => {
  document.body.dataset.ready = "1";
});
