/**
 * `webbrain mcp` through the MCP SDK's own Client over stdio: the real bin, real Firefox.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ElicitRequestSchema, type ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { type FixtureServer, findRef, startFixtureServer } from "@webbrain/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pngSize } from "../src/browser/screenshots.js";
import { useCliFirefox } from "./cli-firefox.js";
import { connectMcpClient, mcpResultText } from "./run-cli.js";

const PROCESS_TEST_TIMEOUT_MS = 120_000;

let server: FixtureServer;
const firefox = useCliFirefox();

beforeAll(async () => {
  server = await startFixtureServer();
});

afterAll(async () => {
  await server?.close();
});

/** `webbrain mcp …args` on the file's shared Firefox. */
function connect(args: string[], client?: Client): Promise<Client> {
  return connectMcpClient([...firefox.connectArgs(), ...args], { client });
}

const textOf = mcpResultText;

describe("webbrain mcp", () => {
  it(
    "serves Act tools: the tree as text, trusted clicks, screenshots as image content",
    async () => {
      const client = await connect(["--url", server.url("/runner/trusted-only.html")]);
      try {
        const { tools } = await client.listTools();
        const names = tools.map((tool) => tool.name);
        expect(names).toEqual(
          expect.arrayContaining(["get_accessibility_tree", "click_ax", "type_ax", "screenshot"]),
        );
        expect(tools.find((tool) => tool.name === "click_ax")?.inputSchema).toMatchObject({
          type: "object",
          properties: { ref_id: expect.any(Object) },
        });

        const tree = await client.callTool({ name: "get_accessibility_tree", arguments: {} });
        expect(tree.isError).toBe(false);
        const treeText = textOf(tree);
        expect(treeText).toMatch(/^\[get_accessibility_tree ok\]/);
        const coupon = findRef(treeText, "textbox", "Coupon code");
        const confirm = findRef(treeText, "button", "Confirm order");

        expect(
          (await client.callTool({ name: "type_ax", arguments: { ref_id: coupon, value: "MCP" } })).isError,
        ).toBe(false);
        expect((await client.callTool({ name: "click_ax", arguments: { ref_id: confirm } })).isError).toBe(
          false,
        );
        expect(textOf(await client.callTool({ name: "read_page", arguments: {} }))).toContain(
          "Order confirmed with coupon MCP",
        );

        const shot = await client.callTool({ name: "screenshot", arguments: {} });
        const image = (shot.content as { type: string; data?: string; mimeType?: string }[]).find(
          (b) => b.type === "image",
        );
        expect(image?.mimeType).toBe("image/png");
        expect(pngSize(Buffer.from(image!.data!, "base64"))?.width).toBeGreaterThan(100);

        const stale = await client.callTool({ name: "click_ax", arguments: { ref_id: 999 } });
        expect(stale.isError).toBe(true);
        expect(textOf(stale)).toMatch(/stale/);
      } finally {
        await client.close();
      }
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    "lists the core tools by default and refuses one left out, naming the --tools that serves it; --tools all lists the rest",
    async () => {
      const url = server.url("/runner/trusted-only.html");
      const core = await connect(["--url", url]);
      try {
        const names = (await core.listTools()).tools.map((tool) => tool.name);
        expect(names).toEqual(expect.arrayContaining(["get_accessibility_tree", "click_ax", "navigate"]));
        expect(names).not.toContain("upload_file");
        expect(names).not.toContain("done");
        const refused = await core.callTool({
          name: "iframe_type",
          arguments: { selector: "#x", text: "t" },
        });
        expect(refused.isError).toBe(true);
        expect(textOf(refused)).toBe(
          "iframe_type is not served by this webbrain mcp (it lists core tools); start it with --tools core,frames to use it.",
        );
      } finally {
        await core.close();
      }
      const all = await connect(["--tools", "all", "--url", url]);
      try {
        const names = (await all.listTools()).tools.map((tool) => tool.name);
        expect(names).toEqual(expect.arrayContaining(["upload_file", "iframe_type", "fetch_url", "done"]));
      } finally {
        await all.close();
      }
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    "--confirm asks the client's user through elicitation before each new click; deny refuses, always sticks",
    async () => {
      const asked: string[] = [];
      const answers: ElicitResult[] = [
        { action: "accept", content: { answer: "deny" } },
        { action: "decline" },
        { action: "accept", content: { answer: "always" } },
      ];
      const client = new Client(
        { name: "webbrain-test", version: "0.0.0" },
        { capabilities: { elicitation: { form: {} } } },
      );
      client.setRequestHandler(ElicitRequestSchema, async (request) => {
        asked.push(request.params.message);
        return answers.shift() ?? { action: "cancel" };
      });
      await connect(["--confirm", "--url", server.url("/runner/trusted-only.html")], client);
      try {
        const tree = textOf(await client.callTool({ name: "get_accessibility_tree", arguments: {} }));
        const confirm = findRef(tree, "button", "Confirm order");
        const click = () => client.callTool({ name: "click_ax", arguments: { ref_id: confirm } });
        const denied = await click();
        expect(denied.isError).toBe(true);
        expect(textOf(denied)).toMatch(/The user denied interact on http:\/\/127\.0\.0\.1:\d+/);
        expect((await click()).isError).toBe(true); // declined: denied too
        expect(textOf(await client.callTool({ name: "read_page", arguments: {} }))).not.toContain(
          "Order confirmed",
        );
        const allowed = await click();
        expect(allowed.isError, textOf(allowed)).toBe(false); // always
        const coupon = findRef(tree, "textbox", "Coupon code");
        const typed = await client.callTool({ name: "type_ax", arguments: { ref_id: coupon, value: "MCP" } });
        expect(typed.isError, textOf(typed)).toBe(false); // same capability and origin: not asked again
        expect(asked).toHaveLength(3);
        expect(asked[0]).toMatch(/^Allow click_ax.* on http:\/\/127\.0\.0\.1:\d+\?$/);
        expect(textOf(await client.callTool({ name: "read_page", arguments: {} }))).toContain(
          "Order confirmed",
        );
      } finally {
        await client.close();
      }
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    "--confirm with a client that cannot ask its user: the click is denied, nothing happens",
    async () => {
      const client = await connect(["--confirm", "--url", server.url("/runner/trusted-only.html")]);
      try {
        const tree = textOf(await client.callTool({ name: "get_accessibility_tree", arguments: {} }));
        const denied = await client.callTool({
          name: "click_ax",
          arguments: { ref_id: findRef(tree, "button", "Confirm order") },
        });
        expect(denied.isError).toBe(true);
        expect(textOf(denied)).toMatch(/The user denied interact/);
        expect(textOf(await client.callTool({ name: "read_page", arguments: {} }))).not.toContain(
          "Order confirmed",
        );
      } finally {
        await client.close();
      }
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    "holds Ask mode: no action tools are listed, and one called anyway is refused",
    async () => {
      const client = await connect(["--mode", "ask", "--url", server.url("/runner/delete-account.html")]);
      try {
        const names = (await client.listTools()).tools.map((tool) => tool.name);
        expect(names).toContain("get_accessibility_tree");
        expect(names).not.toContain("click_ax");
        const tree = textOf(await client.callTool({ name: "get_accessibility_tree", arguments: {} }));
        const refused = await client.callTool({
          name: "click_ax",
          arguments: { ref_id: findRef(tree, "button", "Delete account") },
        });
        expect(refused.isError).toBe(true);
        expect(textOf(refused)).toMatch(/Ask mode is read-only/);
        expect(textOf(await client.callTool({ name: "read_page", arguments: {} }))).not.toContain(
          "Account deleted",
        );
      } finally {
        await client.close();
      }
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});
