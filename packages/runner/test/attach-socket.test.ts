/**
 * The companion's socket for `webbrain mcp --own-firefox` and the runner's link to it, without
 * Firefox: the folder's checks, a round trip of every message kind, cancel, revoke, a line too
 * long to relay, a stale socket, and no companion at all. The add-on's side and the whole path
 * in real Firefox are extension/test/own-firefox-mcp.test.ts.
 */
import { chmod, mkdir, mkdtemp, readdir, rm } from "node:fs/promises";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CompanionEvent } from "@webbrain/protocol";
import { waitFor } from "@webbrain/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { AttachFolderError, AttachSocketServer, ensurePrivateDir } from "../src/companion/attach-socket.js";
import { BrowserUnavailableError } from "../src/errors.js";
import { OwnFirefoxLink } from "../src/mcp/own-firefox-link.js";

const dirs: string[] = [];
const servers: AttachSocketServer[] = [];
async function socketDir(): Promise<string> {
  const base = await mkdtemp(join(tmpdir(), "webbrain-attach-test-"));
  dirs.push(base);
  return join(base, "webbrain");
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.stop()));
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function listening(dir: string): Promise<{ server: AttachSocketServer; events: CompanionEvent[] }> {
  const events: CompanionEvent[] = [];
  const server = await AttachSocketServer.listen(dir, (event) => events.push(event));
  servers.push(server);
  return { server, events };
}

describe("the attach socket's folder", () => {
  it("is made 0700, and a folder other users may open is refused, never loosened or used", async () => {
    const dir = await socketDir();
    await ensurePrivateDir(dir);
    await chmod(dir, 0o755);
    await expect(AttachSocketServer.listen(dir, () => undefined)).rejects.toThrow(AttachFolderError);
    await expect(ensurePrivateDir(dir)).rejects.toThrow(/chmod 700/);
    expect(await readdir(dir)).toEqual([]);
  });
});

describe("companion socket <-> mcp --own-firefox link", () => {
  it("relays the client's lines to the add-on and the add-on's answers back; cancel reaches the add-on", async () => {
    const dir = await socketDir();
    const { server, events } = await listening(dir);
    const link = await OwnFirefoxLink.open(dir);
    link.introduce({ name: "claude-code", version: "2.1" });
    await waitFor(() => events.length === 1, { message: "the attach line did not arrive" });
    const client = (events[0] as Extract<CompanionEvent, { type: "attach_message" }>).client;
    expect(events[0]).toEqual({
      type: "attach_message",
      client,
      message: { type: "attach", client: { name: "claude-code", version: "2.1" } },
    });

    const listing = link.listTools();
    await waitFor(() => events.length === 2, { message: "list_tools did not arrive" });
    const listId = (events[1] as { message: { id: number } }).message.id;
    server.send(client, {
      type: "answer",
      id: listId,
      ok: true,
      tools: [{ name: "click_ax", description: "Click", inputSchema: { type: "object" } }],
    });
    expect((await listing).map((tool) => tool.name)).toEqual(["click_ax"]);

    const stop = new AbortController();
    const calling = link.callTool("wait_for_stable", { timeout_ms: 10 }, stop.signal);
    await waitFor(() => events.length === 3, { message: "call_tool did not arrive" });
    const callId = (events[2] as { message: { id: number } }).message.id;
    expect(events[2]).toMatchObject({ message: { type: "call_tool", name: "wait_for_stable" } });
    stop.abort();
    await waitFor(() => events.length === 4, { message: "cancel did not arrive" });
    expect(events[3]).toMatchObject({ message: { type: "cancel", id: callId } });
    server.send(client, { type: "answer", id: callId, ok: false, error: "Stopped." });
    expect((await calling).result).toEqual({ success: false, error: "Stopped." });
    link.close();
    await waitFor(() => events.some((event) => event.type === "attach_gone"), {
      message: "the add-on was not told the client left",
    });
  });

  it("revoked: the pending call and every later one fail with the person's reason; stop removes the socket file", async () => {
    const dir = await socketDir();
    const { server, events } = await listening(dir);
    const link = await OwnFirefoxLink.open(dir);
    const pending = link.callTool("get_accessibility_tree", {});
    await waitFor(() => events.length === 1, { message: "the call did not arrive" });
    const { client } = events[0] as { client: number };
    expect(server.close(client, "the person revoked access in the WebBrain sidebar")).toBe(true);
    expect(await link.ended).toContain("revoked access");
    expect((await pending).result.success).toBe(false);
    const later = await link.callTool("navigate", { url: "https://example.org" });
    expect(later.result.error).toContain("The person ended this client's access");
    expect(events.filter((event) => event.type === "attach_message")).toHaveLength(1);
    await server.stop();
    expect(await readdir(dir)).toEqual([]);
  });

  it("a line too long to relay to the add-on ends that client, and nothing reaches the add-on", async () => {
    const dir = await socketDir();
    const { server, events } = await listening(dir);
    const raw = connect(server.path);
    let answer = "";
    raw.setEncoding("utf8");
    raw.on("data", (chunk: string) => {
      answer += chunk;
    });
    const closed = new Promise<void>((resolve) => raw.on("close", () => resolve()));
    raw.write("x".repeat(600 * 1024));
    await closed;
    expect(answer).toContain('"type":"revoked"');
    expect(events.every((event) => event.type === "attach_gone")).toBe(true);
  });

  it("no companion: a clear error saying how to start one; a socket left by a dead companion is skipped", async () => {
    const dir = await socketDir();
    await expect(OwnFirefoxLink.open(dir)).rejects.toThrow(BrowserUnavailableError);
    await expect(OwnFirefoxLink.open(dir)).rejects.toThrow(/webbrain companion install/);
    // A socket file nobody listens on any more (its companion was killed).
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const stalePath = join(dir, "companion-999999.sock");
    const stale = createServer();
    await new Promise<void>((resolve) => stale.listen(stalePath, () => resolve()));
    await new Promise<void>((resolve) => stale.close(() => resolve()));
    await expect(OwnFirefoxLink.open(dir)).rejects.toThrow(BrowserUnavailableError);
    const { events } = await listening(dir);
    const link = await OwnFirefoxLink.open(dir);
    link.introduce({ name: "after-stale" });
    await waitFor(() => events.length === 1, { message: "the live companion got nothing" });
    link.close();
  });
});
