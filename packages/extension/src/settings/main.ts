/**
 * The settings page: providers (add from a preset, edit, remove, make active, test the
 * connection), max steps, Plan before Act, verbose level, the streaming kill switch, and the
 * "always allow" grants to revoke. Every change is saved through the background page, which
 * validates it; a field the user got wrong is marked and explained. Opened with `?welcome=1` on
 * first install. Protected messaging routes, Skills and Offline Wikipedia are sections of their
 * own (messaging-routes-section.ts, skills/, zim/).
 */
import { COMPANION_PERMISSION, type PermissionCapability, type Tier } from "@webbrain/protocol";
import { localizeDocument, t } from "../shared/i18n.js";
import type { AlwaysGrant, ConnectionTestResult } from "../shared/messages.js";
import { request } from "../shared/request.js";
import {
  type FieldProblem,
  MAX_MAX_DOWNLOAD_MB,
  MAX_PERSON_WAIT_MINUTES,
  PROVIDER_PRESETS,
  type ProviderConfig,
  type ProviderPreset,
  parseSettings,
  providerFromPreset,
  SETTINGS_KEY,
  type Settings,
  type VerboseLevel,
  validateProvider,
} from "../shared/settings.js";
import { mountSkillsSection } from "../skills/skills-section.js";
import { mountArchiveSection } from "../zim/archive-section.js";
import { mountMessagingRoutesSection } from "./messaging-routes-section.js";

function byId<T extends HTMLElement>(id: string): T {
  const node = document.getElementById(id);
  if (node === null) throw new Error(`settings.html lacks #${id}`);
  return node as T;
}

const ui = {
  welcome: byId<HTMLParagraphElement>("welcome"),
  list: byId<HTMLUListElement>("provider-list"),
  none: byId<HTMLParagraphElement>("no-providers"),
  preset: byId<HTMLSelectElement>("preset"),
  add: byId<HTMLButtonElement>("add-provider"),
  editor: byId<HTMLElement>("editor"),
  editorHeading: byId<HTMLHeadingElement>("editor-heading"),
  form: byId<HTMLFormElement>("provider-form"),
  errors: byId<HTMLParagraphElement>("form-errors"),
  test: byId<HTMLButtonElement>("test-connection"),
  testResult: byId<HTMLParagraphElement>("test-result"),
  cancel: byId<HTMLButtonElement>("cancel-edit"),
  modelOptions: byId<HTMLDataListElement>("p-model-options"),
  maxSteps: byId<HTMLInputElement>("max-steps"),
  maxDownloadMb: byId<HTMLInputElement>("max-download-mb"),
  personWaitMinutes: byId<HTMLInputElement>("person-wait-minutes"),
  planBeforeAct: byId<HTMLInputElement>("plan-before-act"),
  agentSaved: byId<HTMLParagraphElement>("agent-saved"),
  streamResponses: byId<HTMLInputElement>("stream-responses"),
  screenshotAfterActions: byId<HTMLInputElement>("screenshot-after-actions"),
  allowFileUrls: byId<HTMLInputElement>("allow-file-urls"),
  companion: byId<HTMLInputElement>("companion"),
  companionStatus: byId<HTMLParagraphElement>("companion-status"),
  azureFields: byId<HTMLDivElement>("azure-fields"),
  bedrockFields: byId<HTMLDivElement>("bedrock-fields"),
  baseUrlLabel: byId<HTMLLabelElement>("p-baseUrl-label"),
  apiKeyLabel: byId<HTMLSpanElement>("p-apiKey-label"),
  apiKeyHint: byId<HTMLSpanElement>("p-apiKey-hint"),
  grantList: byId<HTMLUListElement>("grant-list"),
  noGrants: byId<HTMLParagraphElement>("no-grants"),
};

const fields = {
  label: byId<HTMLInputElement>("p-label"),
  api: byId<HTMLSelectElement>("p-api"),
  baseUrl: byId<HTMLInputElement>("p-baseUrl"),
  apiKey: byId<HTMLInputElement>("p-apiKey"),
  model: byId<HTMLInputElement>("p-model"),
  tier: byId<HTMLSelectElement>("p-tier"),
  contextWindow: byId<HTMLInputElement>("p-contextWindow"),
  vision: byId<HTMLInputElement>("p-vision"),
  timeoutSeconds: byId<HTMLInputElement>("p-timeoutSeconds"),
  azureDeployment: byId<HTMLInputElement>("p-azureDeployment"),
  azureApiVersion: byId<HTMLInputElement>("p-azureApiVersion"),
  bedrockRegion: byId<HTMLInputElement>("p-bedrockRegion"),
};

let settings: Settings;
/** The provider being edited (not yet saved when new). */
let editing: { provider: ProviderConfig; isNew: boolean } | undefined;

function newId(): string {
  return `p-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 7)}`;
}

function readForm(base: ProviderConfig): ProviderConfig {
  return {
    ...base,
    label: fields.label.value.trim(),
    api: fields.api.value as ProviderConfig["api"],
    baseUrl: fields.baseUrl.value.trim().replace(/\/+$/, ""),
    apiKey: fields.apiKey.value.trim(),
    model: fields.model.value.trim(),
    tier: fields.tier.value as Tier,
    contextWindow: Number(fields.contextWindow.value),
    vision: fields.vision.checked,
    timeoutSeconds: Number(fields.timeoutSeconds.value),
    azureDeployment: fields.azureDeployment.value.trim(),
    azureApiVersion: fields.azureApiVersion.value.trim(),
    bedrockRegion: fields.bedrockRegion.value.trim(),
  };
}

/** Show the fields this protocol needs, named the way its provider names them. */
function showProtocolFields(api: ProviderConfig["api"]): void {
  ui.azureFields.hidden = api !== "azure-openai-responses";
  ui.bedrockFields.hidden = api !== "bedrock-converse-stream";
  ui.baseUrlLabel.textContent =
    api === "azure-openai-responses"
      ? t("fieldAzureEndpoint")
      : api === "bedrock-converse-stream"
        ? t("fieldBedrockEndpoint")
        : t("fieldBaseUrl");
  ui.apiKeyLabel.textContent = api === "bedrock-converse-stream" ? t("fieldBedrockKey") : t("fieldApiKey");
  ui.apiKeyHint.hidden = api !== "openai-completions";
}

function fillForm(provider: ProviderConfig): void {
  fields.label.value = provider.label;
  fields.api.value = provider.api;
  fields.baseUrl.value = provider.baseUrl;
  fields.apiKey.value = provider.apiKey;
  fields.model.value = provider.model;
  fields.tier.value = provider.tier;
  fields.contextWindow.value = String(provider.contextWindow);
  fields.vision.checked = provider.vision;
  fields.timeoutSeconds.value = String(provider.timeoutSeconds);
  fields.azureDeployment.value = provider.azureDeployment;
  fields.azureApiVersion.value = provider.azureApiVersion;
  fields.bedrockRegion.value = provider.bedrockRegion;
  showProtocolFields(provider.api);
}

function showProblems(problems: FieldProblem[]): void {
  for (const input of Object.values(fields)) input.removeAttribute("aria-invalid");
  for (const problem of problems) {
    const input = fields[problem.field as keyof typeof fields];
    input?.setAttribute("aria-invalid", "true");
  }
  ui.errors.textContent = problems.map((p) => p.message).join("\n");
  const first = problems[0];
  if (first) fields[first.field as keyof typeof fields]?.focus();
}

function setTestResult(kind: "ok" | "failed" | "pending" | "", text: string): void {
  ui.testResult.className = `test-result ${kind}`;
  ui.testResult.textContent = text;
}

function openEditor(provider: ProviderConfig, isNew: boolean): void {
  editing = { provider, isNew };
  fillForm(provider);
  showProblems([]);
  setTestResult("", "");
  ui.modelOptions.replaceChildren();
  ui.editorHeading.textContent = isNew ? t("newProvider") : t("editProvider", provider.label);
  ui.editor.hidden = false;
  fields.label.focus();
}

function closeEditor(): void {
  editing = undefined;
  ui.editor.hidden = true;
}

function renderList(): void {
  ui.list.replaceChildren();
  ui.none.hidden = settings.providers.length > 0;
  for (const provider of settings.providers) {
    const li = document.createElement("li");
    const main = document.createElement("div");
    main.className = "p-main";
    const name = document.createElement("div");
    name.className = "p-name";
    name.textContent = provider.label;
    if (provider.id === settings.activeProviderId) {
      const tag = document.createElement("span");
      tag.className = "active-tag";
      tag.textContent = ` · ${t("inUse")}`;
      name.append(tag);
    }
    const meta = document.createElement("div");
    meta.className = "p-meta";
    const where =
      provider.api === "bedrock-converse-stream"
        ? provider.baseUrl || provider.bedrockRegion
        : provider.baseUrl;
    meta.textContent = `${provider.model} · ${where} · ${provider.tier}${provider.vision ? ` · ${t("visionTag")}` : ""}`;
    main.append(name, meta);
    li.append(main);
    const button = (label: string, className: string, onClick: () => void) => {
      const b = document.createElement("button");
      b.type = "button";
      b.className = className;
      b.textContent = label;
      b.setAttribute("aria-label", t("buttonOnProvider", label, provider.label));
      b.addEventListener("click", onClick);
      li.append(b);
    };
    if (provider.id !== settings.activeProviderId) {
      button(
        t("useButton"),
        "secondary",
        () => void update((s) => ({ ...s, activeProviderId: provider.id })),
      );
    }
    button(t("editButton"), "secondary", () => openEditor(structuredClone(provider), false));
    button(t("removeButton"), "quiet", () => {
      if (!confirm(t("confirmRemoveProvider", provider.label))) return;
      if (editing?.provider.id === provider.id) closeEditor();
      void update((s) => {
        const providers = s.providers.filter((p) => p.id !== provider.id);
        const activeProviderId = s.activeProviderId === provider.id ? providers[0]?.id : s.activeProviderId;
        return { ...s, providers, activeProviderId };
      });
    });
    ui.list.append(li);
  }
}

function renderAgent(): void {
  ui.maxSteps.value = String(settings.maxSteps);
  ui.maxDownloadMb.value = String(settings.maxDownloadMb);
  ui.personWaitMinutes.value = String(settings.personWaitMinutes);
  ui.planBeforeAct.checked = settings.planBeforeAct;
  ui.streamResponses.checked = settings.streamResponses;
  ui.screenshotAfterActions.checked = settings.screenshotAfterActions;
  ui.allowFileUrls.checked = settings.allowFileUrls;
  ui.companion.checked = settings.companion;
  for (const radio of document.querySelectorAll<HTMLInputElement>('input[name="verbose"]')) {
    radio.checked = radio.value === settings.verbose;
  }
}

let saving: Promise<unknown> = Promise.resolve();

/**
 * Saves one change. Changes queue up and each applies to the settings the previous one left,
 * so two quick edits (a field's change on blur, then a checkbox) never overwrite each other.
 */
function update(change: (current: Settings) => Settings): Promise<boolean> {
  const next = saving.then(async () => {
    try {
      settings = await request({ type: "save_settings", settings: change(settings) });
      renderList();
      renderAgent();
      return true;
    } catch (error) {
      ui.errors.textContent = error instanceof Error ? error.message : String(error);
      return false;
    }
  });
  saving = next;
  return next;
}

ui.add.addEventListener("click", () => {
  const preset = PROVIDER_PRESETS.find((p) => p.key === ui.preset.value) ?? PROVIDER_PRESETS[0];
  if (preset) openEditor({ ...providerFromPreset(preset, newId()), label: presetLabel(preset) }, true);
});

ui.cancel.addEventListener("click", closeEditor);

fields.api.addEventListener("change", () => showProtocolFields(fields.api.value as ProviderConfig["api"]));

ui.form.addEventListener("submit", (event) => {
  event.preventDefault();
  if (!editing) return;
  const provider = readForm(editing.provider);
  const problems = validateProvider(provider);
  showProblems(problems);
  if (problems.length > 0) {
    setTestResult("", "");
    return;
  }
  const isNew = editing.isNew;
  void update((s) => {
    const providers = isNew
      ? [...s.providers, provider]
      : s.providers.map((p) => (p.id === provider.id ? provider : p));
    return { ...s, providers, activeProviderId: s.activeProviderId ?? provider.id };
  }).then((ok) => {
    if (ok) closeEditor();
  });
});

function describeTest(provider: ProviderConfig, result: ConnectionTestResult): string {
  const where = provider.baseUrl || provider.bedrockRegion;
  if (result.answered) return t("testAnswered", where, result.latencyMs, provider.model);
  const lines = [t("testConnected", where, result.latencyMs)];
  if (result.modelListed === true) lines.push(t("testModelListed", provider.model));
  if (result.modelListed === false) {
    const sample = result.models.slice(0, 8).join(", ");
    lines.push(t("testModelNotListed", provider.model, `${sample}${result.models.length > 8 ? ", …" : ""}`));
  }
  if (result.modelListed === undefined) lines.push(t("testNoModels"));
  return lines.join("\n");
}

ui.test.addEventListener("click", () => {
  if (!editing) return;
  const provider = readForm(editing.provider);
  const problems = validateProvider(provider).filter((p) => p.field !== "model");
  showProblems(problems);
  if (problems.length > 0) return;
  setTestResult("pending", t("testing", provider.baseUrl || provider.bedrockRegion));
  ui.test.disabled = true;
  request({ type: "test_provider", provider })
    .then((result) => {
      ui.modelOptions.replaceChildren(...result.models.map((m) => new Option(m, m)));
      setTestResult(result.modelListed === false ? "failed" : "ok", describeTest(provider, result));
    })
    .catch((error: unknown) =>
      setTestResult("failed", error instanceof Error ? error.message : String(error)),
    )
    .finally(() => {
      ui.test.disabled = false;
    });
});

function flashSaved(): void {
  ui.agentSaved.textContent = t("saved");
  setTimeout(() => {
    ui.agentSaved.textContent = "";
  }, 2_000);
}

ui.maxSteps.addEventListener("change", () => {
  const value = Number(ui.maxSteps.value);
  if (!Number.isInteger(value) || value < 1 || value > 1_000) {
    ui.maxSteps.setAttribute("aria-invalid", "true");
    ui.agentSaved.textContent = t("maxStepsInvalid");
    return;
  }
  ui.maxSteps.removeAttribute("aria-invalid");
  void update((s) => ({ ...s, maxSteps: value })).then((ok) => ok && flashSaved());
});

ui.maxDownloadMb.addEventListener("change", () => {
  const value = Number(ui.maxDownloadMb.value);
  if (!Number.isInteger(value) || value < 1 || value > MAX_MAX_DOWNLOAD_MB) {
    ui.maxDownloadMb.setAttribute("aria-invalid", "true");
    ui.agentSaved.textContent = t("maxDownloadMbInvalid");
    return;
  }
  ui.maxDownloadMb.removeAttribute("aria-invalid");
  void update((s) => ({ ...s, maxDownloadMb: value })).then((ok) => ok && flashSaved());
});

ui.personWaitMinutes.addEventListener("change", () => {
  const value = Number(ui.personWaitMinutes.value);
  if (!Number.isInteger(value) || value < 1 || value > MAX_PERSON_WAIT_MINUTES) {
    ui.personWaitMinutes.setAttribute("aria-invalid", "true");
    ui.agentSaved.textContent = t("personWaitMinutesInvalid");
    return;
  }
  ui.personWaitMinutes.removeAttribute("aria-invalid");
  void update((s) => ({ ...s, personWaitMinutes: value })).then((ok) => ok && flashSaved());
});

ui.planBeforeAct.addEventListener("change", () => {
  const checked = ui.planBeforeAct.checked;
  void update((s) => ({ ...s, planBeforeAct: checked })).then((ok) => ok && flashSaved());
});

ui.screenshotAfterActions.addEventListener("change", () => {
  const checked = ui.screenshotAfterActions.checked;
  void update((s) => ({ ...s, screenshotAfterActions: checked })).then((ok) => ok && flashSaved());
});

ui.allowFileUrls.addEventListener("change", () => {
  const checked = ui.allowFileUrls.checked;
  void update((s) => ({ ...s, allowFileUrls: checked })).then((ok) => ok && flashSaved());
});

// Turning the companion on asks Firefox for native messaging, from the person's click (Firefox
// grants optional permissions only then); refused, the switch stays off.
ui.companion.addEventListener("change", () => {
  const checked = ui.companion.checked;
  const granted = checked
    ? browser.permissions.request({ permissions: [COMPANION_PERMISSION] })
    : Promise.resolve(true);
  void granted
    .then((ok) => {
      if (!ok) {
        ui.companion.checked = false;
        return false;
      }
      return update((s) => ({ ...s, companion: checked }));
    })
    .then((ok) => {
      if (ok) flashSaved();
      return renderCompanionStatus();
    });
});

async function renderCompanionStatus(): Promise<void> {
  const status = await request({ type: "companion_status" }).catch((error: unknown) => ({
    kind: "synthetic" as const,
    detail: error instanceof Error ? error.message : String(error),
  }));
  ui.companionStatus.textContent = status.detail;
  ui.companionStatus.dataset.input = status.kind;
}

ui.streamResponses.addEventListener("change", () => {
  const checked = ui.streamResponses.checked;
  void update((s) => ({ ...s, streamResponses: checked })).then((ok) => ok && flashSaved());
});

/** Where the background's Store keeps the agent's "always allow" grants (agent: prefix). */
const GRANTS_STORAGE_KEY = "agent:permissions:always";

const CAPABILITY_KEYS = {
  interact: "capInteract",
  navigate: "capNavigate",
  network: "capNetwork",
  download: "capDownload",
  upload: "capUpload",
  execute_js: "capExecuteJs",
  clipboard_read: "capClipboardRead",
} as const satisfies Record<PermissionCapability, string>;

function capabilityLabel(capability: string): string {
  const key = CAPABILITY_KEYS[capability as keyof typeof CAPABILITY_KEYS];
  return key ? t(key) : capability;
}

async function renderGrants(): Promise<void> {
  const grants = await request({ type: "list_grants" });
  ui.noGrants.hidden = grants.length > 0;
  ui.grantList.replaceChildren(...grants.map(grantRow));
}

function grantRow(grant: AlwaysGrant): HTMLLIElement {
  const li = document.createElement("li");
  const text = document.createElement("span");
  text.className = "g-text";
  const capability = document.createElement("span");
  capability.className = "g-cap";
  capability.textContent = capabilityLabel(grant.capability);
  text.append(capability, ` · ${grant.origin}`);
  const revoke = document.createElement("button");
  revoke.type = "button";
  revoke.className = "quiet";
  revoke.textContent = t("revokeButton");
  revoke.setAttribute("aria-label", t("revokeGrant", capabilityLabel(grant.capability), grant.origin));
  revoke.addEventListener("click", () => {
    request({ type: "revoke_grant", capability: grant.capability, origin: grant.origin })
      .then(renderGrants)
      .catch((error: unknown) => {
        ui.errors.textContent = error instanceof Error ? error.message : String(error);
      });
  });
  li.append(text, revoke);
  return li;
}

for (const radio of document.querySelectorAll<HTMLInputElement>('input[name="verbose"]')) {
  radio.addEventListener("change", () => {
    if (radio.checked) {
      const verbose = radio.value as VerboseLevel;
      void update((s) => ({ ...s, verbose })).then((ok) => ok && flashSaved());
    }
  });
}

// Another page (the sidebar's provider picker, a second settings tab) may change the settings:
// follow it, so a later change here never writes back a stale copy.
browser.storage.onChanged.addListener((changes, area) => {
  if (area !== "local") return;
  const changed = changes[SETTINGS_KEY];
  if (changed) {
    settings = parseSettings(changed.newValue).settings;
    renderList();
    renderAgent();
  }
  if (GRANTS_STORAGE_KEY in changes) void renderGrants().catch(() => undefined);
});

/** What the preset list shows: local servers say so, the catch-all entry is a sentence. */
function presetLabel(preset: ProviderPreset): string {
  if (preset.key === "custom") return t("presetCustom");
  return preset.local ? t("presetLocal", preset.label) : preset.label;
}

async function start(): Promise<void> {
  localizeDocument(document);
  for (const preset of PROVIDER_PRESETS) ui.preset.append(new Option(presetLabel(preset), preset.key));
  settings = await request({ type: "get_settings" });
  ui.welcome.hidden = new URLSearchParams(location.search).get("welcome") !== "1";
  renderList();
  renderAgent();
  await renderGrants();
  await renderCompanionStatus();
}

// Settings -> Protected messaging routes, Skills and Offline Wikipedia live in their own modules.
const page = document.querySelector<HTMLElement>("main.page");
if (page) {
  mountMessagingRoutesSection(page);
  mountSkillsSection(page);
  mountArchiveSection(page);
}

start().catch((error: unknown) => {
  ui.errors.textContent = error instanceof Error ? error.message : String(error);
});
