/**
 * The `webbrain` bin as a user runs it: a real process through the tsx shim, real Firefox.
 * Checks help, exit codes and the screenshot command end to end. Runs reach the file's one Firefox
 * through `--connect` (cli-firefox.ts) unless launching is what they test.
 */
import { spawn } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { connectBidi, processGroupRuns } from "@webbrain/bidi";
import { type FixtureServer, findRef, startFakeGrid, startFixtureServer } from "@webbrain/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pngSize } from "../src/browser/screenshots.js";
import { COMMANDS } from "../src/cli/command-specs.js";
import { useCliFirefox } from "./cli-firefox.js";
import { BIN, runCli, runMain } from "./run-cli.js";

/** Each test starts the CLI, some also Firefox (seconds each on a loaded two-core machine). */
const PROCESS_TEST_TIMEOUT_MS = 120_000;

let server: FixtureServer;
let workDir: string;
const firefox = useCliFirefox();

beforeAll(async () => {
  server = await startFixtureServer();
  workDir = await mkdtemp(join(tmpdir(), "webbrain-cli-test-"));
});

afterAll(async () => {
  await server?.close();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe("webbrain CLI process", () => {
  it(
    "prints help for the program and every command, exit 0",
    async () => {
      const main = await runCli(["--help"]);
      expect(main.code).toBe(0);
      for (const command of COMMANDS) expect(main.stdout).toContain(`  ${command.name}`);
      const runHelp = await runCli(["run", "--help"]);
      expect(runHelp.code).toBe(0);
      expect(runHelp.stdout).toContain("Usage: webbrain run");
      // Every command's help is main's answer, which the two bin runs above print: asked in this
      // process, without a Node start per command.
      for (const command of COMMANDS) {
        const help = await runMain([command.name, "--help"]);
        expect(help.code, command.name).toBe(0);
        expect(help.stdout).toContain(`Usage: webbrain ${command.name}`);
      }
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    "exits 2 with one clear line on usage errors",
    async () => {
      const unknown = await runCli(["fly"]);
      expect(unknown).toMatchObject({ code: 2, stdout: "" });
      expect(unknown.stderr).toMatch(
        /^webbrain: Unknown command "fly"\. Commands: run, snapshot, exec, screenshot, mcp/,
      );
      const missing = await runCli(["screenshot", server.url("/runner/browser-features.html")]);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toMatch(/-o FILE/);
      expect((await runCli([])).code).toBe(2);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    "writes viewport and full-page screenshots",
    async () => {
      const viewportFile = join(workDir, "viewport.png");
      const fullFile = join(workDir, "full.png");
      const url = server.url("/runner/browser-features.html");
      // The first run launches its own Firefox, as a user's first command does.
      const viewport = await runCli(["screenshot", url, "-o", viewportFile]);
      expect(viewport.code, viewport.stderr).toBe(0);
      const full = await runCli(["screenshot", url, "--full", "-o", fullFile, ...firefox.connectArgs()]);
      expect(full.code, full.stderr).toBe(0);
      const viewportSize = pngSize(await readFile(viewportFile));
      const fullSize = pngSize(await readFile(fullFile));
      expect(fullSize!.height).toBeGreaterThan(viewportSize!.height);
      expect(full.stderr).toMatch(/wrote .*full\.png \(\d+x\d+ px\)/);
      // Nothing half-written is left beside the output.
      expect((await readdir(workDir)).sort()).toEqual(["full.png", "viewport.png"]);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    "exits 3 with a clear message when Firefox cannot be launched or reached",
    async () => {
      const out = join(workDir, "never.png");
      const launch = await runCli([
        "screenshot",
        "http://127.0.0.1:1/",
        "-o",
        out,
        "--firefox",
        "/nonexistent/firefox",
      ]);
      expect(launch.code).toBe(3);
      expect(launch.stderr).toMatch(/^webbrain: Could not launch Firefox/);
      const connect = await runCli([
        "screenshot",
        "http://127.0.0.1:1/",
        "-o",
        out,
        "--connect",
        "ws://127.0.0.1:1",
      ]);
      expect(connect.code).toBe(3);
      expect(connect.stderr).toMatch(/Could not connect to Firefox at ws:\/\/127\.0\.0\.1:1/);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    "exits 1 when the page does not load",
    async () => {
      const result = await runCli([
        "screenshot",
        "http://127.0.0.1:1/",
        "-o",
        join(workDir, "x.png"),
        ...firefox.connectArgs(),
      ]);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/^webbrain: Could not open http:\/\/127\.0\.0\.1:1\//);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    "snapshot prints the whole tree, or a budgeted one folded, ending with the truncation marker",
    async () => {
      const url = server.url("/runner/product-form.html");
      const whole = await runCli(["snapshot", url, ...firefox.connectArgs()]);
      expect(whole.code, whole.stderr).toBe(0);
      expect(whole.stdout).toMatch(/^heading "Create a product" level=1\n/);
      expect(whole.stdout).toMatch(/\[\d+\] combobox "Billing period" value="Monthly"/);
      expect(whole.stdout).toMatch(/\[\d+\] button "Save product"/);
      // Over its budget the tree folds: what does not fit is one line with a ref to open it.
      const cut = await runCli(["snapshot", url, "--budget", "200", ...firefox.connectArgs()]);
      expect(cut.stdout).toMatch(/\[\d+\] textbox "Name" … folded: \d+ controls/);
      expect(cut.stdout).not.toContain('combobox "Billing period"');
      expect(cut.stdout.trimEnd().split("\n").at(-1)).toMatch(/truncated/);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    "snapshot --webdriver gets its Firefox from a Selenium Grid 4 style server and gives it back",
    async () => {
      const grid = await startFakeGrid();
      try {
        const url = server.url("/runner/product-form.html");
        const result = await runCli(["snapshot", url, "--webdriver", grid.url]);
        expect(result.code, result.stderr).toBe(0);
        expect(result.stdout).toMatch(/^heading "Create a product" level=1\n/);
        expect(result.stdout).toMatch(/\[\d+\] button "Save product"/);
        const post = grid.requests.find((r) => r.method === "POST" && r.path === "/session");
        expect(post?.body).toMatchObject({ capabilities: { alwaysMatch: { webSocketUrl: true } } });
        // The Grid's session id is only visible in its DELETE; exactly one session was made.
        const deletes = grid.requests.filter((r) => r.method === "DELETE");
        expect(deletes.map((r) => r.path)).toEqual([expect.stringMatching(/^\/session\/[\w-]+$/)]);
        expect(grid.relayedMethods).not.toContain("session.new");
        expect(grid.sessions.size).toBe(0);
        expect(grid.launchedPids).toHaveLength(1);
        for (const pid of grid.launchedPids)
          expect(processGroupRuns(pid), `Firefox group ${pid}`).toBe(false);
      } finally {
        await grid.close();
      }
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    "snapshot --json gives the page action's result, with the filter applied",
    async () => {
      const url = server.url("/runner/product-form.html");
      const json = JSON.parse(
        (await runCli(["snapshot", url, "--filter", "interactive", "--json", ...firefox.connectArgs()]))
          .stdout,
      );
      expect(json).toMatchObject({ success: true, metadata: { filter: "interactive" } });
      expect(json.tree).not.toContain("heading");
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    "exec answers each line as it finishes, so the next call can use a ref from the last answer",
    async () => {
      const child = spawn(
        process.execPath,
        [BIN, "exec", server.url("/runner/trusted-only.html"), ...firefox.connectArgs()],
        {
          stdio: ["pipe", "pipe", "pipe"],
        },
      );
      let stderr = "";
      child.stderr.on("data", (chunk) => {
        stderr += chunk;
      });
      const answers = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
      const next = async () => JSON.parse(String((await answers.next()).value));
      const exited = new Promise<number | null>((resolve) => child.on("close", resolve));

      child.stdin.write(`${JSON.stringify({ tool: "get_accessibility_tree", args: {} })}\n`);
      const tree = await next();
      expect(tree).toMatchObject({ tool: "get_accessibility_tree", result: { success: true } });
      expect(tree.text).toMatch(/^\[get_accessibility_tree ok\]\n<untrusted source="page /);
      const coupon = findRef(tree.result.tree, "textbox", "Coupon code");
      const confirm = findRef(tree.result.tree, "button", "Confirm order");

      child.stdin.write(
        `${JSON.stringify({ tool: "type_ax", args: { ref_id: coupon, value: "SAVE10" } })}\n`,
      );
      expect(await next()).toMatchObject({
        tool: "type_ax",
        result: { success: true, value: "SAVE10", trusted: true },
      });
      child.stdin.write(`${JSON.stringify({ tool: "click_ax", args: { ref_id: String(confirm) } })}\n`);
      expect(await next()).toMatchObject({ tool: "click_ax", result: { success: true, trusted: true } });
      child.stdin.write(`${JSON.stringify({ tool: "read_page", args: {} })}\n`);
      expect((await next()).result.text).toContain("Order confirmed with coupon SAVE10");
      child.stdin.write("not json\n");
      expect((await next()).result).toMatchObject({
        success: false,
        error: expect.stringMatching(/line 5 is not JSON/),
      });
      child.stdin.end(`${JSON.stringify({ tool: "click_ax", args: { ref_id: 999 } })}\n`);
      const stale = await next();
      expect(stale.result).toMatchObject({ success: false, error: expect.stringMatching(/stale/) });
      expect(await exited, stderr).toBe(1);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    "exec keeps Ask mode read-only: the click is refused and nothing happens",
    async () => {
      const calls = [
        { tool: "get_accessibility_tree", args: {} },
        { tool: "click_ax", args: { ref_id: 2 } },
        { tool: "read_page", args: {} },
      ];
      const run = await runCli(
        ["exec", server.url("/runner/trusted-only.html"), "--mode", "ask", ...firefox.connectArgs()],
        {
          stdin: calls.map((c) => JSON.stringify(c)).join("\n"),
        },
      );
      const [, click, read] = run.stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line));
      expect(click.result).toMatchObject({
        success: false,
        error: expect.stringMatching(/Ask mode is read-only/),
      });
      expect(read.result.text).toContain("Nothing confirmed");
      expect(run.code).toBe(1);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    "works on a Firefox it did not launch (--connect) and leaves that Firefox running",
    async () => {
      // The file's Firefox, started without a session (cli-firefox.ts): one blank tab, as found.
      const url = server.url("/runner/product-form.html");
      const first = await runCli(["snapshot", url, "--connect", firefox.wsEndpoint]);
      expect(first.code, first.stderr).toBe(0);
      expect(first.stdout).toMatch(/combobox "Billing period"/);
      // The session was ended, not leaked: a second client can connect.
      const second = await runCli([
        "snapshot",
        url,
        "--connect",
        firefox.wsEndpoint,
        "--filter",
        "interactive",
      ]);
      expect(second.code, second.stderr).toBe(0);
      // Still running, and its tabs are as we found them: our working tabs were closed again.
      const session = await connectBidi(firefox.wsEndpoint);
      try {
        const tree = await session.client.send("browsingContext.getTree", { maxDepth: 0 });
        expect(tree.contexts.map((c) => c.url)).toEqual(["about:blank"]);
      } finally {
        await session.close();
      }
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});
