/**
 * Over MCP the client is the agent: the real `webbrain mcp` bin over stdio, real Firefox.
 * Calls the loop detector and the duplicate-submit guard would refuse in our own agent loop
 * succeed here, with a warning in the result; the mode rules still refuse.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { type FixtureServer, findRef, startFixtureServer } from "@webbrain/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useCliFirefox } from "./cli-firefox.js";
import { connectMcpClient, mcpResultText } from "./run-cli.js";

const PROCESS_TEST_TIMEOUT_MS = 300_000;
/** The SDK's 60 s default is too short for a start on a loaded two-core machine. */
const MCP_REQUEST = { timeout: 150_000 };

let server: FixtureServer;
const firefox = useCliFirefox();

beforeAll(async () => {
  server = await startFixtureServer();
});

afterAll(async () => {
  await server?.close();
});

/** `webbrain mcp …args` on the file's shared Firefox. */
function connect(args: string[]): Promise<Client> {
  return connectMcpClient([...firefox.connectArgs(), ...args], { request: MCP_REQUEST });
}

const textOf = mcpResultText;

describe("webbrain mcp never refuses a call its client chose to repeat", () => {
  it(
    "runs the fifth and sixth identical navigate and submit click, warning instead of stopping",
    async () => {
      const client = await connect([]);
      try {
        const url = server.url("/runner/trusted-only.html");
        const navigations: Awaited<ReturnType<Client["callTool"]>>[] = [];
        for (let i = 0; i < 6; i++) {
          navigations.push(
            await client.callTool({ name: "navigate", arguments: { url } }, undefined, MCP_REQUEST),
          );
        }
        for (const result of navigations) expect(result.isError, textOf(result)).toBe(false);
        const fifth = textOf(navigations[4]!);
        expect(fifth).not.toMatch(/Stopped|stuck/);
        expect(fifth).toMatch(/Loop warning: this session navigated to .* 5 times/);
        expect(fifth).toContain("It ran anyway");

        // The duplicate-submit guard: a second "Confirm order" click within its window.
        const tree = textOf(
          await client.callTool({ name: "get_accessibility_tree", arguments: {} }, undefined, MCP_REQUEST),
        );
        const confirm = findRef(tree, "button", "Confirm order");
        const first = await client.callTool(
          { name: "click_ax", arguments: { ref_id: confirm } },
          undefined,
          MCP_REQUEST,
        );
        expect(first.isError, textOf(first)).toBe(false);
        const again = await client.callTool(
          { name: "click_ax", arguments: { ref_id: confirm } },
          undefined,
          MCP_REQUEST,
        );
        expect(again.isError, textOf(again)).toBe(false);
        expect(textOf(again)).toMatch(
          /Duplicate-submit warning: the control named below was already clicked[\s\S]*"Confirm order"/,
        );

        // Still alive and answering after all of that.
        const page = await client.callTool({ name: "read_page", arguments: {} }, undefined, MCP_REQUEST);
        expect(textOf(page)).toContain("Order confirmed");
      } finally {
        await client.close();
      }
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    "still refuses what the mode forbids: Ask mode is read-only",
    async () => {
      const client = await connect(["--mode", "ask", "--url", server.url("/runner/trusted-only.html")]);
      try {
        const refused = await client.callTool(
          { name: "click_ax", arguments: { ref_id: 1 } },
          undefined,
          MCP_REQUEST,
        );
        expect(refused.isError).toBe(true);
        expect(textOf(refused)).toMatch(/ask/i);
      } finally {
        await client.close();
      }
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});
