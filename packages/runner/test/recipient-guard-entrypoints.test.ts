/**
 * The recipient guard on the runner's other ways in: `webbrain run --tasks` and `webbrain mcp`
 * (run's main asked in this process, run-cli.ts runMain; mcp's real bin; real Firefox; the chat fixture of recipient-guard.test.ts made a protected route
 * with `--messaging-route`). Neither has a plan that names a recipient, so, as `webbrain run`
 * without --plan, a send on the route is refused and nothing reaches the server; reading and
 * typing on the page still work.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type FixtureServer,
  findRef,
  lastToolResultText,
  readJsonBody,
  type ScriptedLlm,
  startFixtureServer,
  startScriptedLlm,
} from "@webbrain/testkit";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { useCliFirefox } from "./cli-firefox.js";
import { connectMcpClient, mcpResultText, runMain } from "./run-cli.js";

const firefox = useCliFirefox();

const PROCESS_TEST_TIMEOUT_MS = 300_000;
/** The SDK's 60 s default is too short for a Firefox launch on a loaded two-core machine. */
const MCP_REQUEST = { timeout: 150_000 };

let server: FixtureServer;
let work: string;
const llms: ScriptedLlm[] = [];
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
  work = await mkdtemp(join(tmpdir(), "webbrain-recipient-entry-"));
});

afterAll(async () => {
  for (const llm of llms) await llm.close();
  await server?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

beforeEach(() => {
  sent.length = 0;
});

/** The fixture's chat pages as a protected route, one line like any site's. */
const routeLine = () => `127.0.0.1:${server.port} /chat Test chat`;

describe("recipient guard on webbrain run --tasks and webbrain mcp", () => {
  it(
    "run --tasks: a task's Send on a protected route is refused and nothing is sent",
    async () => {
      let refusal = "";
      const llm = await startScriptedLlm({
        dialect: "openai-chat",
        script: [
          { toolCalls: [{ name: "get_accessibility_tree", arguments: {} }] },
          (request) => {
            const tree = lastToolResultText(request);
            return {
              toolCalls: [
                { name: "type_ax", arguments: { ref_id: findRef(tree, "textbox", "Message"), value: "Hi" } },
                { name: "click_ax", arguments: { ref_id: findRef(tree, "button", "Send") } },
              ],
            };
          },
          (request) => {
            refusal = lastToolResultText(request);
            return { toolCalls: [{ name: "done", arguments: { summary: "The guard refused the send." } }] };
          },
        ],
      });
      llms.push(llm);
      const file = join(work, "tasks.jsonl");
      await writeFile(
        file,
        `${JSON.stringify({ task: "Say Hi to Alice Martin", url: server.url("/chat/chat.html") })}\n`,
      );
      const run = await runMain([
        "run",
        ...firefox.connectArgs(),
        "--tasks",
        file,
        "--messaging-route",
        routeLine(),
        "--base-url",
        llm.baseUrl,
        "--model",
        "scripted-1",
      ]);
      expect(run.code, run.stderr).toBe(0);
      expect(refusal).toContain("Recipient guard");
      expect(sent).toEqual([]);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    "mcp: the client's click on Send is refused with the guard's reason; the page is still read and typed in",
    async () => {
      const client = await connectMcpClient(
        [...firefox.connectArgs(), "--messaging-route", routeLine(), "--url", server.url("/chat/chat.html")],
        { request: MCP_REQUEST },
      );
      try {
        const text = mcpResultText;
        const tree = text(
          await client.callTool({ name: "get_accessibility_tree", arguments: {} }, undefined, MCP_REQUEST),
        );
        const typed = await client.callTool(
          { name: "type_ax", arguments: { ref_id: findRef(tree, "textbox", "Message"), value: "Hi" } },
          undefined,
          MCP_REQUEST,
        );
        expect(typed.isError, text(typed)).not.toBe(true);
        const click = await client.callTool(
          { name: "click_ax", arguments: { ref_id: findRef(tree, "button", "Send") } },
          undefined,
          MCP_REQUEST,
        );
        expect(click.isError).toBe(true);
        expect(text(click)).toContain("Recipient guard");
        const settled = await client.callTool(
          { name: "wait_for_stable", arguments: { timeout_ms: 3000 } },
          undefined,
          MCP_REQUEST,
        );
        expect(settled.isError, text(settled)).not.toBe(true);
        expect(sent).toEqual([]);
      } finally {
        await client.close();
      }
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});
