/**
 * The recipient guard in real headless Firefox, in front of the runner's BrowserPort with the
 * real page script, on a fixture imitating a web messenger (packages/testkit/fixtures/chat).
 * The calls are the ones a model would send through the executor; the guard sees each one
 * before it reaches the page. The right recipient sends; a wrong recipient, an ambiguous header,
 * a conversation that changed between the check and the send, and a task that named nobody do
 * not; a decoy name in a sidebar conversation list is not taken for the header (the header is
 * judged by where it is drawn); Enter in the recipient search box is not a message and passes; a saved workflow with a
 * send step on the route never replays.
 */
import { mkdtemp, rm } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type BrowserPort,
  PROTECTED_MESSAGING_ROUTES,
  parseMessagingRoutes,
  RecipientGuard,
  replayWorkflow,
  type Workflow,
} from "@webbrain/agent";
import {
  type FixtureServer,
  nodesIn,
  readJsonBody,
  refByName,
  startFixtureServer,
  WITH_NODES,
  waitFor,
} from "@webbrain/testkit";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type BrowserConnection, openBrowserConnection } from "../src/browser/browser-connection.js";
import { BidiBrowserPort } from "../src/port/bidi-browser-port.js";
import { loadPageScript } from "../src/port/page-script-source.js";

let server: FixtureServer;
let connection: BrowserConnection;
let port: BidiBrowserPort;
let guard: RecipientGuard;
let guarded: BrowserPort;
let tab: string;
let workDir: string;
const sent: { to: string; text: string }[] = [];

beforeAll(async () => {
  server = await startFixtureServer({
    routes: {
      "/api/messages": async (req: IncomingMessage, res: ServerResponse) => {
        sent.push(await readJsonBody<{ to: string; text: string }>(req));
        res.writeHead(200);
        res.end("{}");
      },
    },
  });
  connection = await openBrowserConnection({});
  workDir = await mkdtemp(join(tmpdir(), "webbrain-recipient-test-"));
  port = await BidiBrowserPort.open({
    client: connection.client,
    pageScript: await loadPageScript(),
    downloadsDir: join(workDir, "downloads"),
    ownsBrowser: true,
  });
  tab = port.tabs.activeId!;
}, 120_000);

afterAll(async () => {
  port?.dispose();
  await connection?.close();
  await server?.close();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

beforeEach(() => {
  // The fixture's chat pages are a protected route here, one line like any site's.
  const routes = [
    ...PROTECTED_MESSAGING_ROUTES,
    ...parseMessagingRoutes(`127.0.0.1:${server.port} /chat Test chat`),
  ];
  guard = new RecipientGuard(routes);
  guarded = guard.wrap(port);
  sent.length = 0;
});

async function openChat(query = ""): Promise<(role: string, name: string) => number> {
  const opened = await guarded.navigate(tab, server.url(`/chat/chat.html${query}`));
  expect(opened.success).not.toBe(false);
  const nodes = nodesIn(await guarded.pageAction(tab, "get_accessibility_tree", WITH_NODES));
  return (role, name) => refByName(nodes, role, name);
}

/** Sent messages after the page had time to post (none when nothing was sent). */
async function settledMessages(): Promise<{ to: string; text: string }[]> {
  await guarded.pageAction(tab, "wait_for_stable", { timeout_ms: 3000 });
  return [...sent];
}

describe("recipient guard", () => {
  it("lets the message through to the recipient the user named, by Send and by Enter", async () => {
    guard.pin(tab, "Alice Martin");
    const ref = await openChat();
    expect(
      (await guarded.pageAction(tab, "type_ax", { ref_id: ref("textbox", "Message"), value: "Hi Alice" }))
        .success,
    ).toBe(true);
    const click = await guarded.pageAction(tab, "click_ax", { ref_id: ref("button", "Send") });
    expect(click.success, String(click.error)).toBe(true);
    await waitFor(async () => sent.length === 1, { message: "the message to Alice" });
    await guarded.pageAction(tab, "type_ax", { ref_id: ref("textbox", "Message"), value: "And again" });
    const enter = await guarded.pageAction(tab, "press_keys", { keys: "Enter" });
    expect(enter.success, String(enter.error)).toBe(true);
    await waitFor(async () => sent.length === 2, { message: "the second message" });
    expect(sent).toEqual([
      { to: "Alice Martin", text: "Hi Alice" },
      { to: "Alice Martin", text: "And again" },
    ]);
  });

  it("refuses to send when the open conversation is someone else", async () => {
    guard.pin(tab, "Alice Martin");
    const ref = await openChat("?peer=bob");
    await guarded.pageAction(tab, "type_ax", { ref_id: ref("textbox", "Message"), value: "Hi Alice" });
    const click = await guarded.pageAction(tab, "click_ax", { ref_id: ref("button", "Send") });
    expect(click.success).toBe(false);
    expect(click.error).toMatch(
      /Recipient guard: the open conversation is with "Bob Stone", not "Alice Martin"; nothing was sent/,
    );
    const enter = await guarded.pageAction(tab, "press_keys", { keys: "Enter" });
    expect(enter.success).toBe(false);
    expect(await settledMessages()).toEqual([]);
  });

  it("takes the header by where it is drawn: a name in the sidebar's conversation list never counts", async () => {
    guard.pin(tab, "Alice Martin");
    // Alice's conversation is open; the decoy list beside it titles rows with both names.
    let ref = await openChat("?decoy=1");
    await guarded.pageAction(tab, "type_ax", { ref_id: ref("textbox", "Message"), value: "Hi Alice" });
    const sendToAlice = await guarded.pageAction(tab, "click_ax", { ref_id: ref("button", "Send") });
    expect(sendToAlice.success, String(sendToAlice.error)).toBe(true);
    await waitFor(async () => sent.length === 1, { message: "the message to Alice" });
    expect(sent).toEqual([{ to: "Alice Martin", text: "Hi Alice" }]);

    // Bob's conversation is open: the decoy heading "Alice Martin" in the list does not make it
    // Alice's; the header says Bob, and nothing is sent.
    ref = await openChat("?decoy=1&peer=bob");
    await guarded.pageAction(tab, "type_ax", { ref_id: ref("textbox", "Message"), value: "Hi Alice" });
    const sendToBob = await guarded.pageAction(tab, "click_ax", { ref_id: ref("button", "Send") });
    expect(sendToBob.success).toBe(false);
    expect(sendToBob.error).toMatch(/the open conversation is with "Bob Stone", not "Alice Martin"/);
    expect(await settledMessages()).toEqual([{ to: "Alice Martin", text: "Hi Alice" }]);
  });

  it("refuses when the header names more than one conversation", async () => {
    guard.pin(tab, "Alice Martin");
    const ref = await openChat("?ambiguous=1");
    await guarded.pageAction(tab, "type_ax", { ref_id: ref("textbox", "Message"), value: "Hi" });
    const click = await guarded.pageAction(tab, "click_ax", { ref_id: ref("button", "Send") });
    expect(click.success).toBe(false);
    expect(click.error).toMatch(/header is ambiguous \("Alice Martin", "Bob Stone"\)/);
    expect(await settledMessages()).toEqual([]);
  });

  it("refuses when the conversation changed between the check and the send", async () => {
    guard.pin(tab, "Alice Martin");
    const ref = await openChat("?switch=1");
    // Picking Alice's row in the left rail sends nothing and passes.
    expect(
      (await guarded.pageAction(tab, "click_ax", { ref_id: ref("button", "Alice Martin") })).success,
    ).toBe(true);
    // Typing lets an incoming chat from Bob take over the pane.
    await guarded.pageAction(tab, "type_ax", { ref_id: ref("textbox", "Message"), value: "Hi Alice" });
    const click = await guarded.pageAction(tab, "click_ax", { ref_id: ref("button", "Send") });
    expect(click.success).toBe(false);
    expect(click.error).toMatch(/with "Bob Stone", not "Alice Martin"/);
    expect(await settledMessages()).toEqual([]);
  });

  it("treats Enter in the recipient search box as no message", async () => {
    guard.pin(tab, "Alice Martin");
    const ref = await openChat("?peer=bob");
    await guarded.pageAction(tab, "type_ax", { ref_id: ref("searchbox", "Search people"), value: "ali" });
    const enter = await guarded.pageAction(tab, "press_keys", { keys: "Enter" });
    expect(enter.success, String(enter.error)).toBe(true);
    const status = await waitFor(
      async () => {
        const text = String((await guarded.pageAction(tab, "get_accessibility_tree", {})).tree);
        return text.includes("1 found") ? text : "";
      },
      { message: "the search result" },
    );
    expect(status).not.toContain('button "Bob Stone"');
    expect(await settledMessages()).toEqual([]);
  });

  it("refuses every send when the task named no recipient", async () => {
    const ref = await openChat();
    await guarded.pageAction(tab, "type_ax", { ref_id: ref("textbox", "Message"), value: "Hi" });
    const click = await guarded.pageAction(tab, "click_ax", { ref_id: ref("button", "Send") });
    expect(click.success).toBe(false);
    expect(click.error).toMatch(/no recipient was named for this task/);
    expect(await settledMessages()).toEqual([]);
  });

  it("never replays a saved workflow whose step may send on the protected route", async () => {
    const url = server.url("/chat/chat.html");
    const workflow: Workflow = {
      webbrainWorkflow: 1,
      name: "say hi",
      createdAt: "",
      fromRun: "test",
      startUrl: url,
      params: [],
      steps: [
        {
          tool: "type_ax",
          args: { value: "Hi" },
          target: { role: "textbox", name: "Message", within: [{ role: "main", name: "" }] },
          url,
        },
        {
          tool: "click_ax",
          args: {},
          target: { role: "button", name: "Send", within: [{ role: "main", name: "" }] },
          url,
        },
      ],
    };
    guard.pin(tab, "Alice Martin");
    const result = await replayWorkflow(guarded, tab, workflow, {
      routes: parseMessagingRoutes(`127.0.0.1:${server.port} /chat Test chat`),
    });
    expect(result).toMatchObject({ status: "stopped", step: 2, completed: 0 });
    expect(result.status === "stopped" && result.reason).toMatch(
      /may send a message on Test chat, a protected messaging route\. A workflow cannot inherit a recipient/,
    );
    expect(await settledMessages()).toEqual([]);
  });
});
