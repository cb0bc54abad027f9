/**
 * `webbrain workflow run --messaging-route`: a replayed workflow never sends on a route the user
 * protected (the CLI's main, asked in this process: run-cli.ts runMain; the file's one Firefox
 * through --connect; the chat fixture of
 * recipient-guard.test.ts, whose Send posts to /api/messages):
 * - a file whose Send step was recorded on the route is refused before any step runs;
 * - a crafted file that records another page for its steps but opens the chat is refused at the
 *   Send step by the replay's own recipient guard, where the page really is;
 * - the same crafted file without the flag sends (the route is the user's, not built in: the
 *   flag is what protects it);
 * - a malformed route line is a usage error that says what a line looks like.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serializeWorkflow, type Workflow } from "@webbrain/agent";
import { type FixtureServer, readJsonBody, startFixtureServer, waitFor } from "@webbrain/testkit";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { useCliFirefox } from "./cli-firefox.js";
import { runMain } from "./run-cli.js";

const PROCESS_TEST_TIMEOUT_MS = 180_000;

let server: FixtureServer;
let work: string;
const firefox = useCliFirefox();
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
  work = await mkdtemp(join(tmpdir(), "webbrain-replay-routes-"));
});

afterAll(async () => {
  await server?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

beforeEach(() => {
  sent.length = 0;
});

const routeLine = () => `127.0.0.1:${server.port} /chat Test chat`;

/** Type "Hi" and click Send in the open conversation; each step says it ran on `stepUrl`. */
function sayHi(stepUrl: string): Workflow {
  const pane = [{ role: "main", name: "" }];
  return {
    webbrainWorkflow: 2,
    name: "say hi",
    createdAt: "2026-01-01T00:00:00.000Z",
    fromRun: "test",
    startUrl: server.url("/chat/chat.html"),
    params: [],
    steps: [
      {
        tool: "type_ax",
        args: { value: "Hi" },
        target: { role: "textbox", name: "Message", within: pane },
        url: stepUrl,
      },
      { tool: "click_ax", args: {}, target: { role: "button", name: "Send", within: pane }, url: stepUrl },
    ],
  };
}

async function writeWorkflow(name: string, workflow: Workflow): Promise<string> {
  const file = join(work, name);
  await writeFile(file, serializeWorkflow(workflow));
  return file;
}

describe("workflow run --messaging-route", () => {
  it(
    "refuses a file whose send step was recorded on the user's protected route, before any step runs",
    async () => {
      const file = await writeWorkflow("recorded.workflow.json", sayHi(server.url("/chat/chat.html")));
      const run = await runMain([
        "workflow",
        "run",
        file,
        "--approve",
        "--json",
        "--messaging-route",
        routeLine(),
        ...firefox.connectArgs(),
      ]);
      expect(run.code, run.stderr).toBe(1);
      expect(run.stderr).toContain('step 2 (click_ax on button "Send"');
      expect(run.stderr).toMatch(/may send a message on Test chat, a protected messaging route/);
      expect(JSON.parse(run.stdout)).toMatchObject({ status: "stopped", step: 2, completed: 0 });
      expect(sent).toEqual([]);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    "refuses the send of a crafted file that hides the route in its recorded URLs; without the flag it sends",
    async () => {
      const file = await writeWorkflow("crafted.workflow.json", sayHi(server.url("/elsewhere.html")));
      const guarded = await runMain([
        "workflow",
        "run",
        file,
        "--approve",
        "--messaging-route",
        routeLine(),
        ...firefox.connectArgs(),
      ]);
      expect(guarded.code, guarded.stderr).toBe(1);
      expect(guarded.stderr).toContain("step 1/2 type_ax ok");
      expect(guarded.stderr).toMatch(/the replay stopped at step 2: click_ax failed: Recipient guard: /);
      // The page's send is a fetch: give a send that did get through the time to arrive.
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(sent).toEqual([]);

      const unguarded = await runMain(["workflow", "run", file, "--approve", ...firefox.connectArgs()]);
      expect(unguarded.code, unguarded.stderr).toBe(0);
      await waitFor(async () => sent.length > 0, { message: "the unprotected replay's message" });
      expect(sent).toEqual([{ to: "Alice Martin", text: "Hi" }]);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it("a malformed route line is a usage error that shows the form", async () => {
    const file = await writeWorkflow("any.workflow.json", sayHi(server.url("/chat/chat.html")));
    const run = await runMain([
      "workflow",
      "run",
      file,
      "--approve",
      "--messaging-route",
      "example.com chat",
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      '--messaging-route: Route line 1 ("example.com chat") needs "host /path-prefix label"',
    );
  });
});
