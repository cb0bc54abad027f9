/**
 * The sidebar: one chat per tab. It follows the active tab of its window unless opened as
 * `sidebar.html?tab=<id>` (pinned to that tab, which is how a person opens it in a tab).
 *
 * Runs belong to the background page: this page only subscribes to a tab over a runtime Port
 * (snapshot, then live events) and sends requests. Closing the sidebar therefore never stops
 * a run, and reopening it rebuilds the same view from the background's journal.
 */

import { isMode, type Mode } from "@webbrain/protocol";
import { mountJobsView } from "../scheduling/jobs-view.js";
import { type Attachment, MAX_ATTACHMENTS } from "../shared/attachments.js";
import { localizeDocument, t } from "../shared/i18n.js";
import { type PortToSidebar, RUN_PORT_NAME, type TabState } from "../shared/messages.js";
import {
  MAX_UPLOAD_BYTES,
  type OfferedFileSummary,
  offeredFileName,
  readableSize,
} from "../shared/offered-files.js";
import { request } from "../shared/request.js";
import type { RunInputShown } from "../shared/run-events.js";
import { parseSettings, SETTINGS_KEY, type Settings } from "../shared/settings.js";

import { WORKFLOWS_KEY } from "../workflows/workflow-library.js";
import { showSaveForm, WorkflowListView } from "../workflows/workflow-panel.js";
import { AttachView } from "./attach-view.js";
import { AttachmentError, readAttachment } from "./attachment-reader.js";
import { TranscriptView } from "./transcript-view.js";

const PLACEHOLDERS = { ask: "placeholderAsk", act: "placeholderAct", dev: "placeholderDev" } as const;

function byId<T extends HTMLElement>(id: string): T {
  const node = document.getElementById(id);
  if (node === null) throw new Error(`sidebar.html lacks #${id}`);
  return node as T;
}

const ui = {
  tabTitle: byId<HTMLSpanElement>("tab-title"),
  badge: byId<HTMLSpanElement>("allow-api-badge"),
  provider: byId<HTMLSelectElement>("provider"),
  chat: byId<HTMLElement>("chat"),
  empty: byId<HTMLDivElement>("empty"),
  transcript: byId<HTMLOListElement>("transcript"),
  live: byId<HTMLDivElement>("live"),
  status: byId<HTMLParagraphElement>("status"),
  runInput: byId<HTMLParagraphElement>("run-input"),
  form: byId<HTMLFormElement>("send-form"),
  input: byId<HTMLTextAreaElement>("input"),
  send: byId<HTMLButtonElement>("send"),
  stop: byId<HTMLButtonElement>("stop"),
  cont: byId<HTMLButtonElement>("continue"),
  clear: byId<HTMLButtonElement>("clear"),
  settingsLink: byId<HTMLAnchorElement>("open-settings"),
  setupHint: byId<HTMLParagraphElement>("setup-hint"),
  openSetup: byId<HTMLButtonElement>("open-setup"),
  attachInput: byId<HTMLInputElement>("attach-input"),
  attachments: byId<HTMLUListElement>("attachments"),
  offerInput: byId<HTMLInputElement>("offer-input"),
  offered: byId<HTMLUListElement>("offered-files"),
  saveWorkflow: byId<HTMLButtonElement>("save-workflow"),
  workflowSave: byId<HTMLDivElement>("workflow-save"),
  workflowStatus: byId<HTMLParagraphElement>("workflow-status"),
  recordWorkflow: byId<HTMLButtonElement>("record-workflow"),
  stopRecording: byId<HTMLButtonElement>("stop-recording"),
};

// Saved workflows (workflows/workflow-panel.ts, shared with the traces page).
const setWorkflowStatus = (text: string) => {
  ui.workflowStatus.textContent = text;
};
// Schedule there makes a workflow job of the sidebar's tab (its jobs list shows it).
const workflowList = new WorkflowListView(
  byId<HTMLUListElement>("workflow-list"),
  setWorkflowStatus,
  () => currentTabId,
);

// MCP clients attached through the companion: consent and control (attach-view.ts).
const attachView = new AttachView(
  byId<HTMLElement>("attach-panel"),
  () => currentTabId,
  (error) => showError(error),
);

/** The mode of the tab's current or last run (an Ask run acts on nothing, so it saves nothing). */
let runMode: Mode | undefined;

/** "Save as workflow" is offered on a finished Act or Dev run of the tab (not while one runs). */
function offerSave(finished: boolean): void {
  finished &&= runMode !== undefined && runMode !== "ask";
  ui.saveWorkflow.hidden = !finished;
  if (!finished) ui.workflowSave.replaceChildren();
}

/** Files attached to the next message. */
let pending: Attachment[] = [];

function renderAttachments(): void {
  ui.attachments.hidden = pending.length === 0;
  ui.attachments.replaceChildren(
    ...pending.map((attachment, index) => {
      const li = document.createElement("li");
      const name = document.createElement("span");
      name.className = "a-name";
      name.textContent = `${attachment.kind === "image" ? "🖼" : "📄"} ${attachment.name}`;
      const remove = document.createElement("button");
      remove.type = "button";
      remove.textContent = "×";
      remove.setAttribute("aria-label", t("attachRemove", attachment.name));
      remove.addEventListener("click", () => {
        pending = pending.filter((_, i) => i !== index);
        renderAttachments();
      });
      li.append(name, remove);
      return li;
    }),
  );
}

async function attachFiles(files: readonly File[]): Promise<void> {
  const vision = settings.providers.find((p) => p.id === settings.activeProviderId)?.vision === true;
  const problems: string[] = [];
  for (const file of files) {
    if (pending.length >= MAX_ATTACHMENTS) {
      problems.push(t("attachTooMany", MAX_ATTACHMENTS));
      break;
    }
    try {
      pending.push(await readAttachment(file, vision));
    } catch (error) {
      problems.push(error instanceof AttachmentError ? error.message : t("attachUnreadable", file.name));
    }
  }
  renderAttachments();
  setStatus(problems.join(" "));
}

/** Files offered for the tab's page (kept by the background page; this is what it last said). */
let offered: OfferedFileSummary[] = [];

function renderOffered(): void {
  ui.offered.hidden = offered.length === 0;
  ui.offered.replaceChildren(
    ...offered.map((file) => {
      const li = document.createElement("li");
      const name = document.createElement("span");
      name.className = "a-name";
      name.textContent = `📤 ${file.name} (${readableSize(file.bytes)})`;
      const remove = document.createElement("button");
      remove.type = "button";
      remove.textContent = "×";
      remove.setAttribute("aria-label", t("offerRemove", file.name));
      remove.addEventListener("click", () => {
        if (currentTabId === undefined) return;
        request({ type: "withdraw_file", tabId: currentTabId, name: file.name })
          .then((files) => {
            offered = files;
            renderOffered();
          })
          .catch(showError);
      });
      li.append(name, remove);
      return li;
    }),
  );
}

/**
 * Offers picked files for the page: the bytes go to the background page (only their names to
 * the model); a file past the upload cap is refused here, before it is read.
 */
async function offerFiles(files: readonly File[]): Promise<void> {
  const tabId = currentTabId;
  if (tabId === undefined) return;
  const problems: string[] = [];
  const done: string[] = [];
  for (const file of files) {
    if (file.size > MAX_UPLOAD_BYTES) {
      problems.push(t("offerTooLarge", file.name, readableSize(file.size), readableSize(MAX_UPLOAD_BYTES)));
      continue;
    }
    try {
      const data = await file.arrayBuffer();
      offered = await request({ type: "offer_file", tabId, name: file.name, mime: file.type, data });
      done.push(offeredFileName(file.name));
    } catch (error) {
      problems.push(error instanceof Error ? error.message : t("offerRejected"));
    }
  }
  if (tabId !== currentTabId) return;
  renderOffered();
  setStatus([...(done.length > 0 ? [t("offerDone", done.join(", "))] : []), ...problems].join(" "));
}

/** Moves what "Ask WebBrain about this" attached for the tab into the Ask input's attachments. */
function takeContextAttachments(tabId: number): void {
  request({ type: "take_context_attachments", tabId })
    .then((taken) => {
      if (taken.length === 0 || tabId !== currentTabId) return;
      pending = [...pending, ...taken].slice(-MAX_ATTACHMENTS);
      renderAttachments();
      // Context questions are questions about the page: Ask, with the cursor in the input.
      if (!running) showMode("ask");
      setStatus(t("contextAttached", taken.map((a) => a.name).join(", ")));
      ui.input.focus();
    })
    .catch(showError);
}

const pinnedTab = Number(new URLSearchParams(location.search).get("tab") ?? Number.NaN);
let currentTabId: number | undefined;
// The tab's scheduled jobs, above the composer (scheduling/jobs-view.ts).
const composer = document.querySelector<HTMLElement>("footer.composer");
const jobsView = composer ? mountJobsView(composer, () => currentTabId) : undefined;
let running = false;
let settings: Settings = parseSettings(undefined).settings;

const view = new TranscriptView(
  ui.transcript,
  ui.live,
  ui.chat,
  {
    answerPrompt(promptId, choiceId, prompt, note) {
      if (currentTabId === undefined) return;
      const tabId = currentTabId;
      const permission = prompt.browserPermission;
      if (prompt.kind === "browser_permission" && permission && choiceId === "allow") {
        // Firefox grants an optional permission only from a person's click: ask here, first.
        browser.permissions
          .request({ permissions: [permission] })
          .catch(() => false)
          .then((granted) =>
            request({ type: "prompt_answer", tabId, promptId, choiceId: granted ? "allow" : "deny" }),
          )
          .catch(showError);
        return;
      }
      request({ type: "prompt_answer", tabId, promptId, choiceId, ...(note ? { note } : {}) }).catch(
        showError,
      );
    },
  },
  byId<HTMLElement>("reply-nav"),
);

function selectedMode(): Mode {
  const checked = document.querySelector<HTMLInputElement>('input[name="mode"]:checked');
  return isMode(checked?.value) ? checked.value : "ask";
}

/** The line under the header saying which input the tab's run uses, and why. */
function showRunInput(input: RunInputShown | undefined): void {
  ui.runInput.hidden = input === undefined;
  ui.runInput.textContent = input?.detail ?? "";
  if (input) ui.runInput.dataset.input = input.kind;
  else delete ui.runInput.dataset.input;
}

function setStatus(text: string): void {
  ui.status.textContent = text;
}

function showError(error: unknown): void {
  setStatus(error instanceof Error ? error.message : String(error));
}

function setRunning(isRunning: boolean, canContinue: boolean): void {
  running = isRunning;
  ui.stop.hidden = !isRunning;
  ui.cont.hidden = isRunning || !canContinue;
  ui.send.disabled = isRunning;
  ui.send.textContent = isRunning ? t("runningButton") : t("sendButton");
}

function refreshEmpty(): void {
  ui.empty.hidden = !view.isEmpty;
}

function showTabTitle(title: string, url: string, tabId: number): void {
  ui.tabTitle.textContent = title || url || t("tabNumber", tabId);
  ui.tabTitle.title = url;
}

/** Read the tab's title now: a state snapshot may be older than the page's latest title. */
function refreshTabTitle(tabId: number): void {
  browser.tabs.get(tabId).then(
    (tab) => {
      if (tabId === currentTabId) showTabTitle(tab.title ?? "", tab.url ?? "", tabId);
    },
    () => undefined,
  );
}

/** Shows `mode` on the Ask / Act / Dev switch, as if the person had picked it. */
function showMode(mode: Mode): void {
  const radio = document.querySelector<HTMLInputElement>(`input[name="mode"][value="${mode}"]`);
  if (radio) radio.checked = true;
  ui.input.placeholder = t(PLACEHOLDERS[mode]);
}

function applyState(state: TabState): void {
  showTabTitle(state.title, state.url, state.tabId);
  refreshTabTitle(state.tabId);
  ui.badge.hidden = !state.allowApi;
  // A panel opened (or reopened) on a tab being recorded offers Stop and save.
  showRecording(state.recording === true);
  offered = state.offeredFiles ?? [];
  renderOffered();
  view.verbose = settings.verbose;
  view.reset(state.transcript, state.run);
  const run = state.run;
  setRunning(
    run?.status === "running",
    run !== undefined && (run.status === "stopped" || run.status === "error"),
  );
  setStatus(run?.status === "running" ? t("statusWorking") : "");
  runMode = run?.mode;
  showRunInput(run?.input);
  offerSave(run?.status === "done");
  refreshEmpty();
}

let port: browser.runtime.Port | undefined;

function connect(): browser.runtime.Port {
  const opened = browser.runtime.connect({ name: RUN_PORT_NAME });
  opened.onMessage.addListener((raw) => {
    const message = raw as PortToSidebar;
    if (message.type === "snapshot" || message.type === "tab_state") {
      if (message.state.tabId !== currentTabId) return;
      // Attaching to a tab (opening the sidebar, switching tabs) shows the mode of that tab's
      // last run, so a reopened panel does not say Ask beside a live Act run. Later state
      // updates leave the switch alone: it is the person's choice for the next message.
      if (message.type === "snapshot" && message.state.run) showMode(message.state.run.mode);
      applyState(message.state);
      // Something the person asked about from the page's context menu before this panel opened.
      if (message.type === "snapshot") takeContextAttachments(message.state.tabId);
      return;
    }
    if (message.type === "allow_api") {
      if (message.tabId === currentTabId) ui.badge.hidden = !message.allowApi;
      return;
    }
    if (message.type === "offered_files") {
      if (message.tabId === currentTabId) {
        offered = message.files;
        renderOffered();
      }
      return;
    }
    if (message.type === "context_attached") {
      if (message.tabId === currentTabId) takeContextAttachments(message.tabId);
      return;
    }
    if (message.tabId !== currentTabId) return;
    const event = message.entry.event;
    if (!view.apply(message.entry)) return;
    if (event.kind === "run_start") {
      runMode = event.mode;
      setRunning(true, false);
      offerSave(false);
    }
    if (event.kind === "status") setStatus(event.text);
    if (event.kind === "input") showRunInput(event.input);
    if (event.kind === "tool_start") setStatus(t("statusRunningTool", event.call.name));
    if (event.kind === "prompt")
      setStatus(t(event.prompt.kind === "takeover" ? "statusTakeover" : "statusWaitingForAnswer"));
    if (event.kind === "prompt_closed") setStatus(t("statusWorking"));
    if (event.kind === "run_end") {
      setRunning(false, event.status === "stopped" || event.status === "error");
      offerSave(event.status === "done");
      // The transcript already says how it ended; the status line only reports live work.
      setStatus("");
    }
    refreshEmpty();
  });
  opened.onDisconnect.addListener(() => {
    port = undefined;
    setStatus(t("statusDisconnected"));
  });
  return opened;
}

function subscribe(tabId: number): void {
  currentTabId = tabId;
  jobsView?.refresh();
  port ??= connect();
  port.postMessage({ type: "subscribe", tabId });
}

async function followActiveTab(): Promise<void> {
  const [tab] = await browser.tabs.query({ active: true, currentWindow: true });
  if (tab?.id !== undefined && tab.id !== currentTabId) subscribe(tab.id);
}

function renderProviders(): void {
  ui.provider.replaceChildren();
  ui.setupHint.hidden = settings.providers.length > 0;
  if (settings.providers.length === 0) {
    const option = new Option(t("noProviderOption"), "");
    ui.provider.append(option);
    ui.provider.disabled = true;
    return;
  }
  ui.provider.disabled = false;
  for (const provider of settings.providers) {
    ui.provider.append(new Option(`${provider.label} · ${provider.model}`, provider.id));
  }
  ui.provider.value = settings.activeProviderId ?? settings.providers[0]?.id ?? "";
}

async function loadSettings(): Promise<void> {
  settings = await request({ type: "get_settings" });
  renderProviders();
  view.verbose = settings.verbose;
}

ui.provider.addEventListener("change", () => {
  const next = { ...settings, activeProviderId: ui.provider.value };
  request({ type: "save_settings", settings: next })
    .then((saved) => {
      settings = saved;
    })
    .catch(showError);
});

for (const radio of document.querySelectorAll<HTMLInputElement>('input[name="mode"]')) {
  radio.addEventListener("change", () => {
    ui.input.placeholder = t(PLACEHOLDERS[selectedMode()]);
  });
}

async function send(): Promise<void> {
  const text = ui.input.value.trim();
  if (text === "" || currentTabId === undefined || running) return;
  setStatus(t("statusStarting"));
  try {
    await request({
      type: "chat_start",
      tabId: currentTabId,
      text,
      mode: selectedMode(),
      ...(pending.length > 0 ? { attachments: pending } : {}),
    });
    ui.input.value = "";
    pending = [];
    renderAttachments();
  } catch (error) {
    showError(error);
  }
}

ui.form.addEventListener("submit", (event) => {
  event.preventDefault();
  void send();
});

ui.input.addEventListener("keydown", (event) => {
  // Enter sends; Shift+Enter is a new line (what chat boxes do).
  if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    void send();
  }
});

ui.attachInput.addEventListener("change", () => {
  const files = [...(ui.attachInput.files ?? [])];
  ui.attachInput.value = "";
  void attachFiles(files);
});

ui.offerInput.addEventListener("change", () => {
  const files = [...(ui.offerInput.files ?? [])];
  ui.offerInput.value = "";
  void offerFiles(files);
});

ui.stop.addEventListener("click", () => {
  if (currentTabId === undefined) return;
  setStatus(t("statusStopping"));
  request({ type: "chat_stop", tabId: currentTabId }).catch(showError);
});

ui.cont.addEventListener("click", () => {
  if (currentTabId === undefined) return;
  request({ type: "chat_continue", tabId: currentTabId }).catch(showError);
});

ui.clear.addEventListener("click", () => {
  if (currentTabId === undefined || running) return;
  request({ type: "chat_clear", tabId: currentTabId }).catch(showError);
});

// Deep verbose (spec 000): Shift+click in the conversation dumps the model payloads.
ui.chat.addEventListener("click", (event) => {
  if (!event.shiftKey || settings.verbose !== "deep" || currentTabId === undefined) return;
  event.preventDefault();
  request({ type: "get_payloads", tabId: currentTabId })
    .then((payloads) => {
      console.groupCollapsed(`WebBrain: ${payloads.length} model payloads for tab ${currentTabId}`);
      for (const payload of payloads) console.log(payload);
      console.groupEnd();
      setStatus(t("statusPayloadsWritten", payloads.length));
    })
    .catch(showError);
});

ui.saveWorkflow.addEventListener("click", () => {
  if (currentTabId === undefined) return;
  setWorkflowStatus("");
  request({ type: "get_run_trace", tabId: currentTabId })
    .then((records) =>
      // The list re-renders from storage.onChanged below; here only show it.
      showSaveForm(ui.workflowSave, records, setWorkflowStatus, () => {
        ui.saveWorkflow.hidden = true;
        byId<HTMLDetailsElement>("workflows").open = true;
      }),
    )
    .catch((error: unknown) => setWorkflowStatus(error instanceof Error ? error.message : String(error)));
});

// Record: the background page records what the person does in this tab (person-recordings.ts).
function showRecording(recording: boolean): void {
  ui.recordWorkflow.hidden = recording;
  ui.stopRecording.hidden = !recording;
}
ui.recordWorkflow.addEventListener("click", () => {
  if (currentTabId === undefined) return;
  request({ type: "record_start", tabId: currentTabId })
    .then(() => {
      showRecording(true);
      setWorkflowStatus(t("recordingStatus"));
    })
    .catch((error: unknown) => setWorkflowStatus(error instanceof Error ? error.message : String(error)));
});
ui.stopRecording.addEventListener("click", () => {
  if (currentTabId === undefined) return;
  request({ type: "record_stop", tabId: currentTabId })
    .then((saved) => {
      setWorkflowStatus(
        t("recordSaved", saved.name, saved.steps, saved.params.join(", ") || t("workflowNoInputs")),
      );
      byId<HTMLDetailsElement>("workflows").open = true;
    })
    .catch((error: unknown) => setWorkflowStatus(error instanceof Error ? error.message : String(error)))
    .finally(() => showRecording(false));
});

browser.storage.onChanged.addListener((changes, area) => {
  if (area === "local" && WORKFLOWS_KEY in changes) void workflowList.render();
});

ui.openSetup.addEventListener("click", () => void browser.runtime.openOptionsPage());

ui.settingsLink.addEventListener("click", (event) => {
  event.preventDefault();
  void browser.runtime.openOptionsPage();
});

browser.storage.onChanged.addListener((changes, area) => {
  if (area === "local" && SETTINGS_KEY in changes) void loadSettings().catch(showError);
});

async function start(): Promise<void> {
  localizeDocument(document);
  // Listen before the first await: a tab activated while the settings load must not be missed
  // (the first query below may run before it and would otherwise never learn of it).
  const settingsLoaded = loadSettings();
  if (!Number.isInteger(pinnedTab)) {
    browser.tabs.onActivated.addListener(() => void settingsLoaded.then(followActiveTab).catch(showError));
  }
  // Keep the header in step with the page as the agent (or the user) navigates.
  browser.tabs.onUpdated.addListener((tabId, change, tab) => {
    if (tabId !== currentTabId || (change.title === undefined && change.url === undefined)) return;
    showTabTitle(tab.title ?? "", tab.url ?? "", tabId);
  });
  await settingsLoaded;
  await workflowList.render();
  await attachView.refresh();
  if (Number.isInteger(pinnedTab)) {
    subscribe(pinnedTab);
  } else {
    await followActiveTab();
  }
}

start().catch(showError);
