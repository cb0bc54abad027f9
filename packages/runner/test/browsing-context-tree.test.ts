/**
 * The runner's browsing-context model (browsing-context-tree.ts, browsing-context.ts) in real
 * headless Firefox 153: one BrowsingContext per tab and iframe, created and disposed from BiDi
 * events; URL, title, the navigation in progress, the open dialog, downloads and requests in
 * flight kept from events; a closed tab's waits ending with its error and its listeners gone;
 * trees of two isolated sessions on one client seeing only their own contexts, and leaving no
 * listener or subscription behind once disposed.
 */
import { mkdtemp, rm } from "node:fs/promises";
import type { ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BidiEventFrame } from "@webbrain/bidi";
import { type FixtureServer, startFixtureServer, until, waitFor } from "@webbrain/testkit";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type BrowserConnection, openBrowserConnection } from "../src/browser/browser-connection.js";
import type { BrowsingContext } from "../src/browser/browsing-context.js";
import { BrowsingContextTree } from "../src/browser/browsing-context-tree.js";
import { FrameGoneError, TabGoneError } from "../src/browser/context-gone.js";
import { PAGE_SANDBOX } from "../src/port/page-script-channel.js";

const REPORT = "month,total\njanuary,1200\n";

/** Responses held until the test lets them go (a request in flight, a slow navigation). */
const held = new Map<string, () => void>();
function holdUntilReleased(name: string, body: string, type: string) {
  return (_req: unknown, res: ServerResponse) =>
    new Promise<void>((resolve) => {
      held.set(name, () => {
        res.writeHead(200, { "content-type": type });
        res.end(body);
        resolve();
      });
    });
}
function release(name: string): void {
  held.get(name)?.();
  held.delete(name);
}

function html(body: string) {
  return (_req: unknown, res: ServerResponse) => {
    res.writeHead(200, { "content-type": "text/html" });
    res.end(`<!doctype html>${body}`);
  };
}

let server: FixtureServer;
let connection: BrowserConnection;
let downloads: string;

beforeAll(async () => {
  server = await startFixtureServer({
    routes: {
      "/tree/page.html": html(
        `<title>Start</title><a id="report" href="/tree/report.txt" download>Report</a>`,
      ),
      "/tree/frames.html": html(`<title>With a frame</title><iframe src="/tree/child.html"></iframe>`),
      "/tree/child.html": html("<title>Child</title><p>inside</p>"),
      "/tree/report.txt": (_req, res) => {
        res.writeHead(200, { "content-type": "text/plain" });
        res.end(REPORT);
      },
      "/tree/held": holdUntilReleased("request", '{"ok":true}', "application/json"),
      "/tree/slow.html": holdUntilReleased("page", "<!doctype html><title>Slow</title>", "text/html"),
    },
  });
  connection = await openBrowserConnection({});
  downloads = await mkdtemp(join(tmpdir(), "webbrain-tree-test-"));
  await connection.client.send("browser.setDownloadBehavior", {
    downloadBehavior: { type: "allowed", destinationFolder: downloads },
  });
});

afterAll(async () => {
  for (const name of [...held.keys()]) release(name);
  await connection?.close();
  await server?.close();
  if (downloads) await rm(downloads, { recursive: true, force: true });
});

async function openTab(userContext?: string): Promise<string> {
  const { context } = await connection.client.send("browsingContext.create", {
    type: "tab",
    ...(userContext ? { userContext } : {}),
  });
  return context;
}

async function navigate(context: string, path: string): Promise<void> {
  await connection.client.send("browsingContext.navigate", {
    context,
    url: server.url(path),
    wait: "complete",
  });
}

/** Runs `expression` in the page, as a click of the person's would (user activation). */
async function inPage(context: string, expression: string): Promise<void> {
  await connection.client.send("script.evaluate", {
    expression,
    target: { context },
    awaitPromise: false,
    userActivation: true,
  });
}

describe("one tree following every tab of the browser", () => {
  let tree: BrowsingContextTree;
  /** A tab opened before the tree started: learned from getTree, not from an event. */
  let earlier: string;

  beforeAll(async () => {
    earlier = await openTab();
    tree = new BrowsingContextTree(connection.client, { sandbox: PAGE_SANDBOX });
    await tree.start();
  });

  afterAll(async () => {
    await tree?.dispose();
  });

  /** The context once the model has it. */
  function known(id: string): Promise<BrowsingContext> {
    return until(() => tree.get(id), { message: `context ${id} in the model` });
  }

  it("learns the tabs that exist at start, then follows tabs and iframes created and destroyed", async () => {
    expect(tree.get(earlier)?.isTab).toBe(true);
    const created: string[] = [];
    const destroyed: string[] = [];
    tree.on("contextCreated", (context) => created.push(context.id));
    tree.on("contextDestroyed", (context) => destroyed.push(context.id));

    const id = await openTab();
    const tab = await known(id);
    expect(tree.tabs().at(-1)).toBe(tab);
    await navigate(id, "/tree/frames.html");
    const frame = await until(() => tab.children[0], { message: "the iframe's context" });
    expect(frame.parent).toBe(tab);
    expect(frame.top).toBe(tab);
    expect(frame.isTab).toBe(false);
    expect(tree.get(frame.id)).toBe(frame);
    expect(frame.url).toBe(server.url("/tree/child.html"));
    expect(created).toEqual([id, frame.id]);

    // Firefox 153 sends one contextDestroyed for the tab (its frames listed inside): the model
    // disposes the frame with it, children first.
    await connection.client.send("browsingContext.close", { context: id });
    await waitFor(() => tab.closed, { message: "the tab disposed" });
    expect(frame.closed).toBe(true);
    expect(tree.get(id)).toBeUndefined();
    expect(tree.get(frame.id)).toBeUndefined();
    expect(destroyed).toEqual([frame.id, id]);
  });

  it("keeps the URL and title from navigations, fragments and history.pushState, and the navigation in progress", async () => {
    const id = await openTab();
    const tab = await known(id);
    await navigate(id, "/tree/page.html");
    expect(tab.url).toBe(server.url("/tree/page.html"));
    expect(await tab.title()).toBe("Start");
    expect(tab.navigation).toBeUndefined();

    await inPage(id, `location.hash = "part"`);
    await waitFor(() => tab.url === server.url("/tree/page.html#part"), { message: "fragmentNavigated" });

    await inPage(id, `document.title = "Routed"; history.pushState({}, "", "/tree/routed")`);
    await waitFor(() => tab.url === server.url("/tree/routed"), { message: "historyUpdated" });
    await waitFor(async () => (await tab.title()) === "Routed", { message: "the title read again" });

    // A document navigation is in progress from navigationStarted until its load.
    void connection.client.send("browsingContext.navigate", {
      context: id,
      url: server.url("/tree/slow.html"),
      wait: "none",
    });
    const navigation = await until(() => tab.navigation, { message: "the navigation in progress" });
    expect(navigation.url).toBe(server.url("/tree/slow.html"));
    await waitFor(() => held.has("page"), { message: "the slow page requested" });
    release("page");
    await waitFor(() => tab.navigation === undefined, { message: "the navigation loaded" });
    expect(tab.url).toBe(server.url("/tree/slow.html"));
    expect(await tab.title()).toBe("Slow");
  });

  it("sees a dialog on the context it opened in, until it is answered", async () => {
    const id = await openTab();
    const tab = await known(id);
    await navigate(id, "/tree/page.html");
    const seen: string[] = [];
    tree.on("prompt", (context, prompt) => seen.push(`${context.id} ${prompt.type} ${prompt.message}`));

    await inPage(id, `setTimeout(() => confirm("Delete the draft?"))`);
    const prompt = await until(() => tab.prompt, { message: "the open dialog" });
    expect(prompt).toMatchObject({ type: "confirm", message: "Delete the draft?" });
    expect(seen).toEqual([`${id} confirm Delete the draft?`]);

    await connection.client.send("browsingContext.handleUserPrompt", { context: id, accept: true });
    await waitFor(() => tab.prompt === undefined, { message: "the dialog closed" });
  });

  it("records a download on the context that started it, with where it landed; the page stays", async () => {
    const id = await openTab();
    const tab = await known(id);
    await navigate(id, "/tree/page.html");
    await inPage(id, `document.getElementById("report").click()`);
    const download = await until(() => tab.downloads[0]?.end && tab.downloads[0], {
      message: "the download ended",
    });
    expect(download).toMatchObject({
      context: id,
      url: server.url("/tree/report.txt"),
      suggestedFilename: "report.txt",
      end: { status: "complete", filepath: join(downloads, "report.txt") },
    });
    // The link's navigation turned into the download: none is in progress, the document stays.
    expect(tab.navigation).toBeUndefined();
    expect(tab.url).toBe(server.url("/tree/page.html"));
  });

  it("counts a request in flight on its context and clears it when it ends", async () => {
    const id = await openTab();
    const tab = await known(id);
    await navigate(id, "/tree/page.html");
    const held = () => [...tab.requests.values()].find((request) => request.url.endsWith("/tree/held"));

    await inPage(id, `fetch("/tree/held").then((response) => response.text())`);
    const request = await until(held, { message: "the fetch in flight" });
    expect(request).toMatchObject({ method: "GET", initiatorType: "fetch" });

    release("request");
    await waitFor(() => held() === undefined, { message: "the fetch ended" });
  });

  it("ends a closed tab's waits with TabGoneError, its frame's with FrameGoneError, and drops their listeners", async () => {
    const id = await openTab();
    const tab = await known(id);
    await navigate(id, "/tree/frames.html");
    const frame = await until(() => tab.children[0], { message: "the iframe's context" });
    const closed: string[] = [];
    tab.on("closed", (reason) => closed.push(`tab: ${reason}`));
    frame.on("closed", (reason) => closed.push(`frame: ${reason}`));
    tab.on("load", () => {});
    // Caught at once: the waits end while the close command is still being answered.
    const what = "a load that never comes";
    const tabWait = tab.waitFor("load", { timeoutMs: 60_000, what }).catch((error: unknown) => error);
    const frameWait = frame.waitFor("load", { timeoutMs: 60_000, what }).catch((error: unknown) => error);
    expect(tab.listenerCount).toBeGreaterThan(2);

    await connection.client.send("browsingContext.close", { context: id });
    const tabError = await tabWait;
    expect(tabError).toBeInstanceOf(TabGoneError);
    expect((tabError as Error).message).toBe(`Tab ${id} is closed; list the tabs and pick another.`);
    expect(await frameWait).toBeInstanceOf(FrameGoneError);
    expect(closed).toEqual(["frame: its tab is gone", "tab: closed"]);
    expect(tab.listenerCount).toBe(0);
    expect(frame.listenerCount).toBe(0);
    // Too late to wait or listen: a wait fails at once, a listener is never kept.
    await expect(tab.waitFor("load", { timeoutMs: 60_000, what: "late" })).rejects.toThrow(TabGoneError);
    tab.on("load", () => {});
    expect(tab.listenerCount).toBe(0);
  });
});

describe("trees of isolated sessions on one client", () => {
  it("see only their own user context's tabs and events, and leave no listener or subscription once disposed", async () => {
    const client = connection.client;
    // Client listeners the trees add and have not removed, counted through a wrapper of `on`.
    let listening = 0;
    const on = client.on.bind(client) as (
      event: string,
      handler: (params: unknown, raw: BidiEventFrame) => void,
    ) => () => void;
    const spy = vi
      .spyOn(client, "on")
      .mockImplementation((event: string, handler: (params: unknown, raw: BidiEventFrame) => void) => {
        listening++;
        const remove = on(event, handler);
        let removed = false;
        return () => {
          if (!removed) listening--;
          removed = true;
          remove();
        };
      });
    const sent: string[] = [];
    const stopCounting = client.onCommandSent((method) => sent.push(method));
    try {
      const [a, b] = await Promise.all([
        client.send("browser.createUserContext", {}),
        client.send("browser.createUserContext", {}),
      ]);
      const alice = new BrowsingContextTree(client, { userContext: a.userContext, sandbox: PAGE_SANDBOX });
      const bob = new BrowsingContextTree(client, { userContext: b.userContext, sandbox: PAGE_SANDBOX });
      await Promise.all([alice.start(), bob.start()]);
      expect(listening).toBeGreaterThan(0);

      const aliceTab = await openTab(a.userContext);
      const bobTab = await openTab(b.userContext);
      await waitFor(() => alice.has(aliceTab) && bob.has(bobTab), { message: "each tree's own tab" });
      expect(alice.has(bobTab)).toBe(false);
      expect(bob.has(aliceTab)).toBe(false);
      // Only tabs of the default user context existed besides: neither tree follows them.
      expect(alice.tabs().map((tab) => tab.id)).toEqual([aliceTab]);
      expect(bob.tabs().map((tab) => tab.id)).toEqual([bobTab]);

      const aliceLoads: string[] = [];
      alice.bidiEvents.on("browsingContext.load", (event) => aliceLoads.push(event.context));
      await navigate(bobTab, "/tree/page.html");
      await navigate(aliceTab, "/tree/page.html");
      expect(aliceLoads).toEqual([aliceTab]);

      const aliceContext = alice.get(aliceTab) as BrowsingContext;
      await alice.dispose();
      expect(aliceContext.closed).toBe(true);
      expect(alice.get(aliceTab)).toBeUndefined();
      expect(alice.listenerCount).toBe(0);
      // Bob's tree goes on: its subscription is its own.
      await navigate(bobTab, "/tree/frames.html");
      await waitFor(() => bob.get(bobTab)?.children.length === 1, { message: "bob's iframe" });

      await bob.dispose();
      expect(listening).toBe(0);
      expect(sent.filter((method) => method === "session.unsubscribe")).toHaveLength(2);
      expect(sent.filter((method) => method === "script.removePreloadScript")).toHaveLength(2);

      // No subscription is left in Firefox: its contextCreated (sent before `create` answers on
      // Firefox 153) reaches no one.
      const events: string[] = [];
      const removeRaw = on("*", (_params, raw) => events.push(raw.method));
      await openTab(a.userContext);
      removeRaw();
      expect(events).toEqual([]);
      await Promise.all(
        [a, b].map(({ userContext }) => client.send("browser.removeUserContext", { userContext })),
      );
    } finally {
      stopCounting();
      spy.mockRestore();
    }
  });
});
