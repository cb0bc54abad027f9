/**
 * The background page: builds the add-on's parts once and wires them to Firefox's events.
 * It is a persistent MV2 background page, so runs it owns keep going while the sidebar is
 * closed. On first install it opens the settings page so a new user can add a provider.
 */
import { setBedrockProviderModule } from "@mariozechner/pi-ai";
import { bedrockProviderModule } from "@mariozechner/pi-ai/bedrock-provider";
import { ConversationStore, platformSkillHttp, serializeWorkflow } from "@webbrain/agent";
import { OfflineWikipediaHttp } from "@webbrain/agent/offline-wikipedia";
import { SchedulerService } from "../scheduling/scheduler-service.js";
import { ATTACH_CHANGED, isAttachRequest } from "../shared/attach-requests.js";
import { languageInstruction, t, uiLanguage } from "../shared/i18n.js";
import { MESSAGING_ROUTES_KEY, protectedRoutes } from "../shared/messaging-routes.js";
import { SETTINGS_KEY } from "../shared/settings.js";
import { SkillsService } from "../skills/skills-service.js";
import { replaceWorkflow } from "../workflows/workflow-library.js";
import { listArchives, openArchive } from "../zim/archive-store.js";
import { AlwaysGrants } from "./always-grants.js";
import { WebRequestApiObserver } from "./api-observer-webrequest.js";
import { AttachBroker } from "./attach-broker.js";
import { firefoxAttachMarks } from "./attach-marks.js";
import { answerAttachRequest } from "./attach-requests.js";
import { CompanionClient } from "./companion-client.js";
import { COMPANION_PERMISSION, runInput } from "./companion-input.js";
import { askAboutHandler, ContextInbox, firefoxContextSources, installContextMenu } from "./context-menu.js";
import { megabytesToBytes } from "./download-limit.js";
import { addonLocalFiles } from "./local-files-setting.js";
import { OfferedFiles } from "./offered-files.js";
import { PayloadRecorder } from "./payload-recorder.js";
import { browserPersonNotifications } from "./person-notifications.js";
import { PersonRecordings } from "./person-recordings.js";
import { Router } from "./router.js";
import { RunHooks } from "./run-hooks.js";
import { RunManager } from "./run-manager.js";
import { SettingsStore } from "./settings-store.js";
import { TabSessions } from "./tab-sessions.js";
import { TRACE_SETTINGS_KEY, TraceStore } from "./trace-store.js";
import { WebExtBrowserPort } from "./webext-browser-port.js";
import { WebExtStore } from "./webext-store.js";
import { installWorkflowRunner, runWorkflow, WORKFLOW_RUN_MESSAGE } from "./workflow-runner.js";

// pi-ai loads its Bedrock client with a Node-only dynamic import; a bundle hands it over.
setBedrockProviderModule(bedrockProviderModule);

const settings = new SettingsStore(browser.storage.local);
const sessions = new TabSessions(browser.storage.session);
// The download limit is read per download, so a change in settings applies to the next one.
const port = new WebExtBrowserPort({
  maxDownloadBytes: async () => megabytesToBytes((await settings.load()).maxDownloadMb),
});
// The Settings page's "local files" checkbox reaches the URL policy of every run and replay.
const followLocalFilesSetting = () =>
  void settings.load().then((current) => {
    port.localFiles = addonLocalFiles(current.allowFileUrls);
  });
followLocalFilesSetting();
browser.storage.onChanged.addListener((changes, area) => {
  if (area === "local" && SETTINGS_KEY in changes) followLocalFilesSetting();
});
// The companion (trusted input over BiDi), asked per run while Settings has it on; turned off,
// its port closes and the companion exits.
const companion = new CompanionClient();
const companionInput = async () =>
  runInput(
    companion,
    {
      enabled: (await settings.load()).companion,
      permitted: () => browser.permissions.contains({ permissions: [COMPANION_PERMISSION] }),
    },
    port,
  );
browser.storage.onChanged.addListener((changes, area) => {
  if (area !== "local" || !(SETTINGS_KEY in changes)) return;
  const next = changes[SETTINGS_KEY]?.newValue as { companion?: unknown } | undefined;
  if (next?.companion !== true) companion.disconnect();
  else void startCompanion().catch(() => undefined);
});
browser.tabs.onRemoved.addListener((tabId) => companion.forgetTab(tabId));
// MCP clients in this Firefox (`webbrain mcp --own-firefox`), relayed by the companion: the
// person allows each in the sidebar and chooses its tabs (attach-broker.ts).
const attachMarks = firefoxAttachMarks((name) => t("attachBar", name));
const attach = new AttachBroker({
  companion,
  port,
  runInput: companionInput,
  routes: async () =>
    protectedRoutes((await browser.storage.local.get(MESSAGING_ROUTES_KEY))[MESSAGING_ROUTES_KEY]),
  marks: attachMarks,
  openWindow: async () => {
    const opened = await browser.windows.create({ url: "about:blank", focused: false });
    const tabId = opened.tabs?.[0]?.id;
    if (opened.id === undefined || tabId === undefined)
      throw new Error("Firefox opened a window without a tab.");
    return { windowId: opened.id, tabId };
  },
  // Every open sidebar re-reads the clients; none open is fine.
  changed: () => void browser.runtime.sendMessage({ type: ATTACH_CHANGED }).catch(() => undefined),
});
browser.tabs.onRemoved.addListener((tabId) => attach.forgetTab(tabId));
// A load drops the bar from the page: a shared tab gets it back.
browser.tabs.onUpdated.addListener((tabId, change) => {
  if (change.status !== "complete") return;
  const name = attach.controllerOf(tabId);
  if (name !== undefined) attachMarks.show(tabId, name);
});
// With the companion on, it runs while Firefox does, so clients can find its socket.
const startCompanion = async () => {
  if (!(await settings.load()).companion) return;
  if (!(await browser.permissions.contains({ permissions: [COMPANION_PERMISSION] }))) return;
  await companion.hello();
};
void startCompanion().catch(() => undefined);
const store = new WebExtStore(browser.storage.local, browser.storage.session);
const conversations = new ConversationStore(store);
const payloads = new PayloadRecorder();
// Traces, the recipient guard and API shortcuts around every run (run-hooks.ts); saved
// workflows replayed for the traces page.
const apiObserver = new WebRequestApiObserver();
void apiObserver.start();
const hooks = new RunHooks(
  new TraceStore(),
  RunHooks.settingsFrom(browser.storage.local, TRACE_SETTINGS_KEY),
  (tabId) => apiObserver.guidance(tabId),
);
// Files the person offered for each tab's page; a run's upload_file reads its chat's (memory only).
const offeredFiles = new OfferedFiles();
const runs: RunManager = new RunManager({
  hooks,
  offeredFiles: {
    list: (chatTabId) => offeredFiles.list(Number(chatTabId)),
    uploads: (chatTabId, attach) => port.offering(offeredFiles.shelf(Number(chatTabId)), attach),
  },
  sessions,
  loadSettings: () => settings.load(),
  port,
  store,
  payloads,
  // A scheduled run that needs a person tells them so (pause_for_user).
  personNeeded: browserPersonNotifications(),
  runInput: companionInput,
  // The model answers in the user's language (spec 000).
  languageHint: () => languageInstruction(uiLanguage()),
  // Skills and the scheduler (scheduling/, skills/): read per run, so changes apply to the next one.
  extraAgentOptions: async () => ({
    skills: await skills.store.enabled(),
    scheduler: scheduler.manager,
    // The packaged Wikipedia skill falls back to installed Kiwix archives (zim/, the reader in
    // @webbrain/agent).
    skillHttp: offlineWikipedia,
  }),
});
// The panel's Run, and "Let the agent finish" when a replay stopped: the agent's steps are saved
// as the workflow's next version, as a scheduled job's repair is.
installWorkflowRunner(
  port,
  store,
  {
    runs,
    lastTrace: (tabId) => hooks.lastTrace(tabId),
    saveRepaired: (old, next) => replaceWorkflow(old, next),
  },
  companionInput,
);
const offlineWikipedia = new OfflineWikipediaHttp(platformSkillHttp, {
  list: listArchives,
  open: openArchive,
});
const skills = new SkillsService();
// Scheduled workflow jobs replay in a tab opened inactive; nobody is at hand to grant a
// capability, so only "always" grants hold and anything else is denied (the job fails there).
const scheduler: SchedulerService = new SchedulerService(runs, {
  replay: (workflow, params, url) =>
    runWorkflow(
      port,
      { type: WORKFLOW_RUN_MESSAGE, workflow: serializeWorkflow(workflow), params, url },
      { store, approver: async () => "deny", input: companionInput },
      { active: false },
    ),
  lastTrace: (tabId) => hooks.lastTrace(tabId),
  saveRepaired: (old, next) => replaceWorkflow(old, next),
});
void skills
  .start()
  .catch((error: unknown) => console.error("WebBrain: seeding packaged skills failed", error));
void scheduler
  .start()
  .catch((error: unknown) => console.error("WebBrain: restoring scheduled jobs failed", error));
// "Ask WebBrain about this" (context-menu.ts): what was clicked waits here for the sidebar.
const contextInbox = new ContextInbox();
const askAbout = askAboutHandler(
  contextInbox,
  firefoxContextSources(async () => {
    const current = await settings.load();
    return current.providers.find((p) => p.id === current.activeProviderId)?.vision === true;
  }),
);
installContextMenu(askAbout);
// The tests' door to the same handler: WebDriver cannot open Firefox's native context menu, so
// the add-on tests call this from an add-on page (extension.getBackgroundPage()).
(globalThis as { webbrainAskAbout?: typeof askAbout }).webbrainAskAbout = askAbout;
// History is asked for when first needed, at the sidebar of the run that needs it.
port.history.setPermissionAsker((tabId, permission) => runs.askBrowserPermission(tabId, permission));

const recordings = new PersonRecordings();
const router = new Router({
  settings,
  sessions,
  runs,
  port,
  payloads,
  grants: new AlwaysGrants(store),
  contextInbox,
  offeredFiles,
  clearAgentConversation: (tabId) => conversations.remove(tabId),
  lastRunTrace: (tabId) => hooks.lastTrace(tabId),
  recordings,
  companionStatus: async () => {
    const { kind, detail } = await companionInput();
    return { kind, detail };
  },
});

browser.runtime.onMessage.addListener(
  (message, sender) =>
    (isAttachRequest(message) ? answerAttachRequest(attach, message) : undefined) ??
    recordings.handle(message, sender) ??
    scheduler.handle(message) ??
    skills.handle(message) ??
    router.handle(message),
);
browser.runtime.onConnect.addListener((connected) => router.connect(connected));

browser.tabs.onRemoved.addListener((tabId) => {
  const key = String(tabId);
  runs.stop(key);
  payloads.forget(key);
  hooks.forgetTab(key);
  contextInbox.forget(tabId);
  offeredFiles.forget(tabId);
  void sessions
    .forget(key)
    .catch((error: unknown) => console.error("WebBrain: forgetting tab failed", error));
});

browser.browserAction.onClicked.addListener(() => {
  void browser.sidebarAction.open();
});

browser.runtime.onInstalled.addListener((details) => {
  if (details.reason !== "install") return;
  void settings.exists().then((configured) => {
    if (!configured) return browser.tabs.create({ url: browser.runtime.getURL("settings.html?welcome=1") });
    return undefined;
  });
});
