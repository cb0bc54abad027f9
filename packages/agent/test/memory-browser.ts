/**
 * An in-memory BrowserPort for agent tests: pages are scripted (URL -> title, tree, and how
 * actions behave), and every call is recorded so tests can assert what the agent did.
 * Browser behaviour itself is tested by the runner and the add-on in real Firefox.
 */
import {
  ALL_BROWSER_CAPABILITIES,
  type BrowserCapabilities,
  linkTreeNodes,
  type PageMeta,
  TREE_NODES_PARAM,
  type TreeNode,
} from "@webbrain/protocol";
import type {
  BrowserPort,
  CompletionProbe,
  DownloadContent,
  DownloadInfo,
  FetchRequest,
  FetchResponse,
  HistoryAccess,
  PageActionName,
  PageResult,
  ResearchResult,
  Screenshot,
  TabInfo,
} from "../src/index.js";
import { printTree } from "./scripted-tree.js";

export interface PageScript {
  title: string;
  /**
   * The page's tree as data (scripted-tree.ts): a tree read answers it printed, as the model
   * reads it, with `meta.ref_names`, and with `meta.nodes` when the call asks for nodes.
   */
  tree: readonly TreeNode[];
  /** Answer a page action; return `{ navigate: url }` to move the tab. Default: success. */
  onAction?: (
    action: PageActionName,
    params: Record<string, unknown>,
  ) => PageResult | { navigate: string } | Promise<PageResult>;
  /** What probe_completion finds (the rest as on a finished page: nothing open, nothing invalid). */
  probe?: Partial<CompletionProbe>;
  /** The whole get_accessibility_tree answer, when a test needs more than `tree`. */
  treeResult?: PageResult;
}

export interface RecordedCall {
  method: string;
  tabId?: string;
  action?: string;
  params?: unknown;
}

/** A scripted page's tree read, as the page layer answers it: the text, ref names, nodes if asked. */
function treeRead(page: PageScript, params: Record<string, unknown>): PageResult {
  const refNames: Record<string, string> = {};
  for (const node of page.tree) if (node.ref !== undefined) refNames[String(node.ref)] = node.name;
  const meta: PageMeta = { ref_names: refNames };
  if (params[TREE_NODES_PARAM] === true) meta[TREE_NODES_PARAM] = linkTreeNodes(page.tree);
  return { success: true, tree: printTree(page.tree), meta };
}

/** probe_completion on a finished page. */
const NOTHING_UNFINISHED: CompletionProbe = {
  url: "",
  dialogs: [],
  forms: [],
  messages: [],
  busy: false,
  open_dialog: false,
};

/** 1x1 transparent PNG. */
const PIXEL_PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

export class MemoryBrowser implements BrowserPort {
  /** Every capability by default (scripted pages answer any action); tests may narrow it. */
  capabilities: BrowserCapabilities = ALL_BROWSER_CAPABILITIES;
  readonly calls: RecordedCall[] = [];
  private readonly tabs = new Map<string, { url: string; history: string[]; index: number }>();
  private nextTab = 2;
  fetchAnswer: (request: FetchRequest) => FetchResponse = (request) => ({
    status: 200,
    statusText: "OK",
    url: request.url,
    headers: { "content-type": "application/json" },
    body: '{"ok":true}',
    truncated: false,
  });

  /** The browsing history the history tools read: every page opened, oldest first. */
  readonly visited: { url: string; title: string; time: number }[] = [];

  constructor(
    readonly pages: Record<string, PageScript>,
    startUrl: string,
  ) {
    this.tabs.set("1", { url: startUrl, history: [startUrl], index: 0 });
    this.visit(startUrl);
  }

  private visit(url: string): void {
    this.visited.push({ url, title: this.pages[url]?.title ?? "", time: Date.now() });
  }

  readonly history: HistoryAccess = {
    searchHistory: async (tabId, query) => {
      this.calls.push({ method: "searchHistory", tabId, params: query });
      const words = query.text.toLowerCase();
      const pages = this.visited
        .filter((v) => `${v.url} ${v.title}`.toLowerCase().includes(words))
        .filter((v) => v.time >= (query.startTime ?? 0) && v.time <= (query.endTime ?? Number.MAX_VALUE))
        .reverse()
        .slice(0, query.maxResults ?? 20)
        .map((v) => ({
          url: v.url,
          title: v.title,
          lastVisit: new Date(v.time).toISOString(),
          visitCount: 1,
        }));
      return { success: true, pages };
    },
    historyVisits: async (tabId, url) => {
      this.calls.push({ method: "historyVisits", tabId, params: { url } });
      const visits = this.visited
        .filter((v) => v.url === url)
        .map((v) => ({ time: new Date(v.time).toISOString(), transition: "link" }));
      return { success: true, url, visits };
    },
  };

  /** Calls of one kind (page action name or port method). */
  named(name: string): RecordedCall[] {
    return this.calls.filter(
      (call) => call.action === name || (call.action === undefined && call.method === name),
    );
  }

  private tab(tabId: string) {
    const tab = this.tabs.get(tabId);
    if (!tab) throw new Error(`tab ${tabId} is gone`);
    return tab;
  }

  private info(id: string): TabInfo {
    const tab = this.tab(id);
    return { id, url: tab.url, title: this.pages[tab.url]?.title ?? "", active: id === "1" };
  }

  private go(tabId: string, url: string): void {
    const tab = this.tab(tabId);
    tab.history = tab.history.slice(0, tab.index + 1);
    tab.history.push(url);
    this.visit(url);
    tab.index = tab.history.length - 1;
    tab.url = url;
  }

  async listTabs(): Promise<TabInfo[]> {
    return [...this.tabs.keys()].map((id) => this.info(id));
  }
  async activeTab(): Promise<TabInfo | undefined> {
    return this.info("1");
  }
  async getTab(tabId: string): Promise<TabInfo> {
    return this.info(tabId);
  }
  async navigate(tabId: string, url: string): Promise<PageResult> {
    this.calls.push({ method: "navigate", tabId, params: { url } });
    this.go(tabId, url);
    return { success: true };
  }
  async goBack(tabId: string): Promise<PageResult> {
    this.calls.push({ method: "goBack", tabId });
    const tab = this.tab(tabId);
    if (tab.index === 0) return { success: false, error: "no history to go back to" };
    tab.index--;
    tab.url = tab.history[tab.index] ?? tab.url;
    return { success: true };
  }
  async goForward(tabId: string): Promise<PageResult> {
    this.calls.push({ method: "goForward", tabId });
    const tab = this.tab(tabId);
    if (tab.index >= tab.history.length - 1) return { success: false, error: "no forward history" };
    tab.index++;
    tab.url = tab.history[tab.index] ?? tab.url;
    return { success: true };
  }
  async newTab(url: string): Promise<TabInfo> {
    const id = String(this.nextTab++);
    this.calls.push({ method: "newTab", tabId: id, params: { url } });
    this.tabs.set(id, { url, history: [url], index: 0 });
    return this.info(id);
  }
  async pageAction(
    tabId: string,
    action: PageActionName,
    params: Record<string, unknown>,
  ): Promise<PageResult> {
    this.calls.push({ method: "pageAction", tabId, action, params });
    const tab = this.tab(tabId);
    const page = this.pages[tab.url];
    if (!page) return { success: false, error: `no page scripted for ${tab.url}` };
    if (action === "get_accessibility_tree") return page.treeResult ?? treeRead(page, params);
    if (action === "probe_completion") return { success: true, ...NOTHING_UNFINISHED, ...page.probe };
    const answer = (await page.onAction?.(action, params)) ?? { success: true };
    if ("navigate" in answer && typeof answer.navigate === "string") {
      this.go(tabId, answer.navigate);
      return { success: true, navigated: true };
    }
    return answer as PageResult;
  }
  async screenshot(tabId: string): Promise<Screenshot> {
    this.calls.push({ method: "screenshot", tabId });
    return { mimeType: "image/png", dataBase64: PIXEL_PNG, width: 1, height: 1 };
  }
  async fetchUrl(request: FetchRequest): Promise<FetchResponse> {
    this.calls.push({ method: "fetchUrl", params: request });
    return this.fetchAnswer(request);
  }
  async researchUrl(url: string): Promise<ResearchResult> {
    this.calls.push({ method: "researchUrl", params: { url } });
    return { success: true, url, title: "Research", text: "Some researched text." };
  }
  async listDownloads(): Promise<DownloadInfo[]> {
    this.calls.push({ method: "listDownloads" });
    return [{ id: "d1", url: "https://x/f.txt", filename: "f.txt", state: "complete" }];
  }
  async readDownload(id: string): Promise<DownloadContent> {
    this.calls.push({ method: "readDownload", params: { id } });
    return { id, filename: "f.txt", content: "file text", encoding: "utf8", truncated: false };
  }
}
