/**
 * `webbrain mcp --own-firefox` in real headless Firefox 153 ESR: an MCP client (the MCP SDK's
 * own client, over stdio) attached to the person's running Firefox through the add-on's
 * companion. The person's side is the real sidebar, clicked with trusted input.
 *
 * What must hold (issue 24): the client is refused until the person allows it in the sidebar;
 * then it navigates and clicks in the shared tab only, never sees a tab that was not shared, is
 * signed in with the cookie the person's own profile holds, its clicks are trusted (through the
 * companion's BiDi), the permission gate's prompt appears in the sidebar, the shared tab shows a
 * bar; Stop ends its call in flight; pause_for_user shows the person a card whose note comes back;
 * revoking cuts it off and takes the bar away; the companion
 * turned off leaves no process and no socket file.
 *
 * As in companion.test.ts, the companion is lent the harness's BiDi session through testkit's
 * relay (Firefox allows one session); everything else, Firefox starting the companion for the
 * add-on included, is real.
 */
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { evaluate, navigate } from "@webbrain/bidi";
import { type FixtureServer, findRef, startFixtureServer, startNodeScript, waitFor } from "@webbrain/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  buildAddon,
  click,
  count,
  firefoxTabId,
  grantOptionalPermission,
  installAndOpenSettings,
  openAddonPage,
  text,
  typeKeys,
  until,
  waitForContext,
  waitForText,
} from "./addon-harness.js";
import { useCompanionFirefox, WEBBRAIN_BIN } from "./companion-harness.js";

const CLIENT_NAME = "test-agent";
const SESSION_COOKIE = "ada-7";
const PRIVATE_TITLE = "Private inbox";

let addon: Awaited<ReturnType<typeof buildAddon>> | undefined;
let fixtures: FixtureServer | undefined;
let settingsPage = "";

const { firefox, runtimeDir } = useCompanionFirefox();

const socketDir = () => join(runtimeDir(), "webbrain");
const sockets = async () =>
  (await readdir(socketDir()).catch(() => [] as string[])).filter((name) => name.endsWith(".sock"));

beforeAll(async () => {
  addon = await buildAddon();
  fixtures = await startFixtureServer({
    routes: {
      // The person signed in earlier, in their own profile: the site set its cookie then.
      "/own/login": (_req, res) => {
        res
          .writeHead(200, { "content-type": "text/html", "set-cookie": `session=${SESSION_COOKIE}; Path=/` })
          .end("<!doctype html><title>Signed in</title><p>Welcome back</p>");
      },
      "/own/account.html": (req, res) => {
        const session = /session=([^;]+)/.exec(req.headers.cookie ?? "")?.[1] ?? "none";
        res
          .writeHead(200, { "content-type": "text/html" })
          .end(
            `<!doctype html><title>Account</title><h1>Signed in with session ${session}</h1><button id="order">Place order</button><p id="log">No order</p><script>document.getElementById("order").addEventListener("click", (event) => { document.getElementById("log").textContent = "Order placed (trusted: " + event.isTrusted + ")"; });</script>`,
          );
      },
      "/own/start.html": (_req, res) => {
        res
          .writeHead(200, { "content-type": "text/html" })
          .end("<!doctype html><title>Start page</title><p>Shared with the agent</p>");
      },
      "/own/private.html": (_req, res) => {
        res
          .writeHead(200, { "content-type": "text/html" })
          .end(`<!doctype html><title>${PRIVATE_TITLE}</title><p>Only for the person</p>`);
      },
    },
  });
  settingsPage = await installAndOpenSettings(firefox.client, addon.dir);
});

afterAll(async () => {
  await fixtures?.close();
  await addon?.remove();
});

async function openTab(path: string): Promise<{ context: string; tabId: number; url: string }> {
  const url = fixtures!.url(path);
  const context = await firefox.newTab();
  await navigate(firefox.client, context, url);
  return { context, tabId: await firefoxTabId(firefox.client, settingsPage, url), url };
}

/** `webbrain mcp --own-firefox` on stdio, as a coding agent starts it; its stderr kept. */
function ownFirefoxTransport(): { transport: StdioClientTransport; stderr: () => string } {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [WEBBRAIN_BIN, "mcp", "--own-firefox"],
    env: { ...(process.env as Record<string, string>), XDG_RUNTIME_DIR: runtimeDir() },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return { transport, stderr: () => stderr };
}

/** An MCP client (the SDK's own) attached through `webbrain mcp --own-firefox`. */
async function attachClient(): Promise<{ client: Client; stderr: () => string }> {
  const { transport, stderr } = ownFirefoxTransport();
  const client = new Client({ name: CLIENT_NAME, version: "1.0.0" });
  await client.connect(transport);
  return { client, stderr };
}

/** A call; a permission prompt it raises is answered "Allow once" in the sidebar, as a person would. */
async function callAnswering(
  client: Client,
  sidebar: string,
  name: string,
  args: Record<string, unknown> = {},
  prompts: string[] = [],
): Promise<CallAnswer> {
  let settled = false;
  const answering = client.callTool({ name, arguments: args }).finally(() => {
    settled = true;
  });
  await waitFor(
    async () => {
      if (settled) return true;
      if ((await count(firefox.client, sidebar, ".attach-prompt")) > 0) {
        prompts.push(await text(firefox.client, sidebar, ".attach-prompt").catch(() => ""));
        await click(firefox.client, sidebar, ".attach-allow-once").catch(() => undefined);
      }
      return false;
    },
    { timeoutMs: 30_000, message: `the ${name} call did not answer` },
  );
  return (await answering) as CallAnswer;
}

/** The toolbar button's badge on a tab, as the person sees it. */
const badgeOf = (tabId: number) =>
  evaluate<string>(firefox.client, settingsPage, `browser.browserAction.getBadgeText({ tabId: ${tabId} })`, {
    awaitPromise: true,
  });

type CallAnswer = { isError?: boolean; content: { type: string; text?: string }[] };
const textOf = (answer: unknown) =>
  (answer as CallAnswer).content
    .flatMap((block) => (block.type === "text" ? [block.text ?? ""] : []))
    .join("\n");

describe("an MCP client in the person's own Firefox (mcp --own-firefox)", () => {
  it("is refused until the person allows it; then acts in the shared tab only, signed in, with trusted clicks; revoked, it is cut off", async () => {
    await grantOptionalPermission(firefox.client, settingsPage, "nativeMessaging");
    await click(firefox.client, settingsPage, "#companion");
    await waitForText(firefox.client, settingsPage, "#companion-status", "Input: trusted");
    await waitFor(async () => (await sockets()).length === 1, { message: "the companion opened no socket" });

    const login = await openTab("/own/login");
    await waitForText(firefox.client, login.context, "p", "Welcome back");
    const privateTab = await openTab("/own/private.html");
    const shared = await openTab("/own/start.html");
    const sidebar = await openAddonPage(firefox.client, settingsPage, `sidebar.html?tab=${shared.tabId}`);

    const { client } = await attachClient();
    const seen: string[] = [];
    const prompts: string[] = [];
    const call = async (name: string, args: Record<string, unknown> = {}) => {
      const answer = await callAnswering(client, sidebar, name, args, prompts);
      seen.push(textOf(answer));
      return answer;
    };
    try {
      // Not allowed yet: refused, nothing done, and the sidebar asks the person.
      const early = await call("get_accessibility_tree", { filter: "interactive" });
      expect(early.isError).toBe(true);
      expect(textOf(early)).toContain("waiting for the person to allow it in the WebBrain sidebar");
      await waitForText(firefox.client, sidebar, ".attach-asks", `${CLIENT_NAME} asks to use this Firefox.`);

      await click(firefox.client, sidebar, ".attach-share-tab");
      await waitForText(
        firefox.client,
        sidebar,
        ".attach-allowed",
        `${CLIENT_NAME} controls 1 tab(s) in act mode.`,
      );
      // The shared tab shows who controls it; the private one shows nothing.
      await waitForText(firefox.client, shared.context, "#webbrain-agent-bar", CLIENT_NAME);
      expect(await count(firefox.client, privateTab.context, "#webbrain-agent-bar")).toBe(0);
      expect(await badgeOf(shared.tabId)).toBe("MCP");
      expect(await badgeOf(privateTab.tabId)).toBe("");

      // Navigates in the shared tab, and is signed in with the person's own cookie.
      const navigated = await call("navigate", { url: fixtures!.url("/own/account.html") });
      expect(navigated.isError).toBeFalsy();
      const tree = await call("get_accessibility_tree", { filter: "all" });
      expect(textOf(tree)).toContain(`Signed in with session ${SESSION_COOKIE}`);
      // The click waits for the permission gate's prompt, which the person answers in the sidebar.
      const clicked = await call("click_ax", { ref_id: findRef(textOf(tree), "button", "Place order") });
      expect(clicked.isError).toBeFalsy();
      expect(prompts.some((prompt) => prompt.startsWith(`${CLIENT_NAME} asks to`))).toBe(true);
      await waitForText(firefox.client, shared.context, "#log", "Order placed (trusted: true)");
      // The bar comes back after the navigation.
      await waitForText(firefox.client, shared.context, "#webbrain-agent-bar", CLIENT_NAME);

      // Nothing the client read names the tab the person did not share.
      expect(seen.join("\n")).not.toContain(PRIVATE_TITLE);
      expect(seen.join("\n")).not.toContain("/own/private.html");
      expect(await evaluate(firefox.client, privateTab.context, "document.title")).toBe(PRIVATE_TITLE);

      // Revoked: cut off at once, and the bar is gone.
      await click(firefox.client, sidebar, ".attach-revoke");
      await waitFor(async () => (await count(firefox.client, sidebar, ".attach-client")) === 0, {
        message: "the revoked client is still listed",
      });
      const after = await call("get_accessibility_tree", { filter: "interactive" });
      expect(after.isError).toBe(true);
      expect(textOf(after)).toContain("revoked access");
      await waitFor(async () => (await count(firefox.client, shared.context, "#webbrain-agent-bar")) === 0, {
        message: "the bar stayed after the revoke",
      });
      expect(await badgeOf(shared.tabId)).toBe("");
    } finally {
      await client.close();
    }
  });

  it("Stop in the sidebar ends the client's call in flight and keeps its access; pause_for_user hands over to the person; a new window for the agent; deny cuts a client off", async () => {
    const shared = await openTab("/own/start.html?stop=1");
    const sidebar = await openAddonPage(firefox.client, settingsPage, `sidebar.html?tab=${shared.tabId}`);
    const { client } = await attachClient();
    try {
      await client.listTools();
      await waitForText(firefox.client, sidebar, ".attach-asks", CLIENT_NAME);
      await click(firefox.client, sidebar, ".attach-share-tab");
      await waitForText(firefox.client, sidebar, ".attach-allowed", CLIENT_NAME);
      // Waits in the page (nothing matches) until the person presses Stop.
      const waiting = client.callTool({
        name: "wait_for_element",
        arguments: { selector: "#never-there", timeout_ms: 60_000 },
      });
      await waitForText(firefox.client, sidebar, ".attach-working", "Working");
      await click(firefox.client, sidebar, ".attach-stop");
      const stopped = (await waiting) as CallAnswer;
      expect(stopped.isError).toBe(true);
      // Access stays: the next call runs.
      const next = (await client.callTool({ name: "get_accessibility_tree", arguments: {} })) as CallAnswer;
      expect(next.isError).toBeFalsy();
      expect(textOf(next)).toContain("Shared with the agent");

      // pause_for_user: the client's own take-over card; the person's note comes back to it.
      const pausing = client.callTool({
        name: "pause_for_user",
        arguments: { message: "Please sign in, then press Continue." },
      });
      await waitForText(firefox.client, sidebar, ".attach-takeover", "Please sign in, then press Continue.");
      await click(firefox.client, sidebar, ".attach-note");
      await typeKeys(firefox.client, sidebar, "Signed in as Ada");
      await click(firefox.client, sidebar, ".attach-continue");
      const handedBack = (await pausing) as CallAnswer;
      expect(handedBack.isError).toBeFalsy();
      expect(textOf(handedBack)).toContain("Signed in as Ada");
    } finally {
      await client.close();
    }

    // A new window for the agent: its calls act there, not in the sidebar's tab.
    const windowed = await attachClient();
    try {
      await windowed.client.listTools();
      await waitForText(firefox.client, sidebar, ".attach-asks", CLIENT_NAME);
      await click(firefox.client, sidebar, ".attach-share-window");
      await waitForText(firefox.client, sidebar, ".attach-allowed", `${CLIENT_NAME} controls 1 tab(s)`);
      const went = await callAnswering(windowed.client, sidebar, "navigate", {
        url: fixtures!.url("/own/account.html?window=1"),
      });
      expect(went.isError).toBeFalsy();
      const inWindow = await waitForContext(
        firefox.client,
        (url) => url.endsWith("/own/account.html?window=1"),
        "the agent's window",
      );
      expect(inWindow).not.toBe(shared.context);
      expect(await evaluate(firefox.client, shared.context, "location.search")).toBe("?stop=1");
      // A tab the client opens stays in its window, not in the window the person last focused.
      const opened = await callAnswering(windowed.client, sidebar, "new_tab", {
        url: fixtures!.url("/own/account.html?window=2"),
      });
      expect(opened.isError).toBeFalsy();
      const windowOf = (search: string) =>
        evaluate<number>(
          firefox.client,
          settingsPage,
          `browser.tabs.query({}).then((tabs) => tabs.find((tab) => (tab.url ?? "").endsWith(${JSON.stringify(search)}))?.windowId ?? -1)`,
          { awaitPromise: true },
        );
      const agentWindow = await windowOf("/own/account.html?window=1");
      expect(agentWindow).toBeGreaterThan(0);
      expect(await windowOf("/own/account.html?window=2")).toBe(agentWindow);
      expect(await windowOf("/own/start.html?stop=1")).not.toBe(agentWindow);
    } finally {
      await windowed.client.close();
    }

    const second = await attachClient();
    try {
      await second.client.listTools();
      await waitForText(firefox.client, sidebar, ".attach-asks", CLIENT_NAME);
      await click(firefox.client, sidebar, ".attach-deny");
      const denied = (await second.client.callTool({
        name: "get_accessibility_tree",
        arguments: {},
      })) as CallAnswer;
      expect(denied.isError).toBe(true);
      expect(textOf(denied)).toContain("denied access");
    } finally {
      await second.client.close();
    }
  });

  it("over --port: a web page's request is refused, the token is required, and each session is allowed in the sidebar", async () => {
    const shared = await openTab("/own/start.html?http=1");
    const sidebar = await openAddonPage(firefox.client, settingsPage, `sidebar.html?tab=${shared.tabId}`);
    let stderr = "";
    const server = startNodeScript(WEBBRAIN_BIN, ["mcp", "--own-firefox", "--port", "0"], {
      env: { XDG_RUNTIME_DIR: runtimeDir() },
      onStderr: (all) => {
        stderr = all;
      },
    });
    const client = new Client({ name: CLIENT_NAME, version: "2.0.0" });
    try {
      const endpoint = await until(
        () => /serving own-firefox tools at (http:\/\/\S+\/mcp);/.exec(stderr)?.[1] ?? null,
        {
          message: "mcp --own-firefox --port did not say where it serves",
        },
      );
      const token = /token for this start: (\S+)/.exec(stderr)?.[1];
      expect(token).toBeTruthy();
      const initialize = JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "evil", version: "1" },
        },
      });
      const post = (headers: Record<string, string>) =>
        fetch(endpoint, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            ...headers,
          },
          body: initialize,
        });
      // A web page (DNS rebinding, or a page posting to localhost) is refused before anything opens.
      expect((await post({ origin: "http://evil.example", authorization: `Bearer ${token}` })).status).toBe(
        403,
      );
      expect((await post({})).status).toBe(401);
      expect(await count(firefox.client, sidebar, ".attach-client")).toBe(0);

      await client.connect(
        new StreamableHTTPClientTransport(new URL(endpoint), {
          requestInit: { headers: { Authorization: `Bearer ${token}` } },
        }),
      );
      const early = (await client.callTool({ name: "get_accessibility_tree", arguments: {} })) as CallAnswer;
      expect(early.isError).toBe(true);
      await waitForText(firefox.client, sidebar, ".attach-asks", `${CLIENT_NAME} asks to use this Firefox.`);
      await click(firefox.client, sidebar, ".attach-share-tab");
      await waitForText(firefox.client, sidebar, ".attach-allowed", CLIENT_NAME);
      const tree = (await client.callTool({ name: "get_accessibility_tree", arguments: {} })) as CallAnswer;
      expect(tree.isError).toBeFalsy();
      expect(textOf(tree)).toContain("Shared with the agent");
    } finally {
      await client.close().catch(() => undefined);
      server.child.kill("SIGINT");
      await server.done;
    }
    // The session's link closed with the server: the sidebar no longer lists the client.
    await waitFor(async () => (await count(firefox.client, sidebar, ".attach-client")) === 0, {
      message: "the HTTP session's client is still listed after the server stopped",
    });
  });

  it("the companion turned off leaves no socket file behind", async () => {
    expect(await sockets()).toHaveLength(1);
    await click(firefox.client, settingsPage, "#companion");
    await waitFor(async () => (await sockets()).length === 0, {
      timeoutMs: 10_000,
      message: "the companion's socket is still there after Settings turned it off",
    });
    // A client started now is told plainly that no companion runs.
    const { transport, stderr } = ownFirefoxTransport();
    const client = new Client({ name: CLIENT_NAME, version: "1.0.0" });
    await expect(client.connect(transport)).rejects.toThrow();
    await waitFor(() => stderr().includes("No WebBrain companion is running"), {
      message: "mcp --own-firefox did not say why it could not attach",
    });
  });
});
