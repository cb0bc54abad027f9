/**
 * Logged-in and isolated sessions with the real `webbrain` bin and real Firefox:
 * - `--profile DIR` keeps a login (a cookie and local storage the fixture sets) across runs, is
 *   never deleted, and is refused while another Firefox holds it;
 * - `webbrain state save` writes cookies and local storage that `--storage-state` loads into a
 *   fresh profile;
 * - one `webbrain mcp --port` serves two MCP sessions over Streamable HTTP whose cookies stay apart.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { launchFirefox } from "@webbrain/bidi";
import { type FixtureServer, startFixtureServer } from "@webbrain/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useCliFirefox } from "./cli-firefox.js";
import { BIN, mcpResultText, runCli } from "./run-cli.js";

const PROCESS_TEST_TIMEOUT_MS = 300_000;
/** The SDK's 60 s default is too short for a session's first page on a loaded two-core machine. */
const MCP_REQUEST = { timeout: 150_000 };
/** Several Firefox launches in a row; each can take 30 s or more on a loaded two-core machine. */
const PROFILE_TEST_TIMEOUT_MS = 400_000;
const SIGN_IN = [
  { tool: "click", args: { text: "Sign in" } },
  { tool: "read_page", args: {} },
]
  .map((line) => `${JSON.stringify(line)}\n`)
  .join("");

let server: FixtureServer;
let work: string;
/** For the runs that test no launch or profile: they reach this Firefox with --connect. */
const firefox = useCliFirefox();

beforeAll(async () => {
  server = await startFixtureServer();
  work = await mkdtemp(join(tmpdir(), "webbrain-sessions-"));
});

afterAll(async () => {
  await server?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

describe("--profile and storage state", () => {
  it(
    "a profile keeps a login across two runs",
    async () => {
      const profile = join(work, "profile");
      const url = server.url("/runner/account-login.html");
      const first = await runCli(["exec", url, "--profile", profile], { stdin: SIGN_IN });
      expect(first.code, first.stderr).toBe(0);
      expect(first.stdout).toContain("Signed in as alice");

      const second = await runCli(["snapshot", url, "--profile", profile]);
      expect(second.code, second.stderr).toBe(0);
      expect(second.stdout).toContain("Signed in as alice");
      expect(second.stdout).toContain("Note: hello alice");
      expect((await stat(profile)).isDirectory()).toBe(true); // never deleted by us
    },
    PROFILE_TEST_TIMEOUT_MS,
  );

  it(
    "state save writes the login to a file and --storage-state loads it into a fresh profile",
    async () => {
      const profile = join(work, "profile"); // logged in by the test above
      const url = server.url("/runner/account-login.html");
      const stateFile = join(work, "state.json");
      const saved = await runCli(["state", "save", stateFile, "--profile", profile, "--url", url]);
      expect(saved.code, saved.stderr).toBe(0);
      const state = JSON.parse(await readFile(stateFile, "utf8")) as {
        cookies: { name: string; value: string }[];
        origins: { origin: string; localStorage: { name: string; value: string }[] }[];
      };
      expect(state.cookies).toContainEqual(expect.objectContaining({ name: "session", value: "alice" }));
      expect(state.origins).toContainEqual({
        origin: server.origin,
        localStorage: [{ name: "note", value: "hello alice" }],
      });
      expect((await stat(stateFile)).mode & 0o777).toBe(0o600);

      // These two need no profile: they reach the file's one Firefox, whose cookies are cleared
      // after each test (cli-firefox.ts).
      const fresh = await runCli(["snapshot", url, ...firefox.connectArgs()]);
      expect(fresh.stdout).toContain("Signed out");
      const loaded = await runCli(["snapshot", url, "--storage-state", stateFile, ...firefox.connectArgs()]);
      expect(loaded.code, loaded.stderr).toBe(0);
      expect(loaded.stdout).toContain("Signed in as alice");
      expect(loaded.stdout).toContain("Note: hello alice");
    },
    PROFILE_TEST_TIMEOUT_MS,
  );

  it(
    "refuses a profile another Firefox holds, and leaves it alone",
    async () => {
      const profile = join(work, "held-profile");
      const holder = await launchFirefox({ profileDir: profile });
      try {
        const refused = await runCli([
          "snapshot",
          server.url("/runner/account-login.html"),
          "--profile",
          profile,
        ]);
        expect(refused.code).toBe(3);
        expect(refused.stderr).toContain(`is in use by another Firefox (pid ${holder.pid})`);
        expect(refused.stderr).toContain("Close that Firefox, or pass another --profile");
      } finally {
        await holder.close();
      }
      expect(existsSync(join(profile, "prefs.js"))).toBe(true); // the profile outlives close()
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    "refuses a storage state that is not one, saying what is wrong",
    async () => {
      const bad = join(work, "bad-state.json");
      await import("node:fs/promises").then((fs) => fs.writeFile(bad, JSON.stringify({ cookies: {} })));
      const run = await runCli([
        "snapshot",
        server.url("/runner/account-login.html"),
        "--storage-state",
        bad,
        ...firefox.connectArgs(),
      ]);
      expect(run.code).not.toBe(0);
      expect(run.stderr).toContain('"cookies" is not a list');
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});

describe("webbrain mcp --port: several sessions, one Firefox", () => {
  it(
    "two MCP sessions see separate cookies (one user context each)",
    async () => {
      const url = server.url("/runner/account-login.html");
      // click by text is in the selectors group (the default lists the core tools).
      // The file's Firefox: the server's sessions are what is tested, not its launch.
      const { child, endpoint, token } = await startHttpMcp([
        "--port",
        "0",
        "--tools",
        "core,selectors",
        "--url",
        url,
        ...firefox.connectArgs(),
      ]);
      const clients: Client[] = [];
      try {
        for (let i = 0; i < 2; i++) {
          const client = new Client({ name: `webbrain-test-${i}`, version: "0.0.0" });
          const transport = new StreamableHTTPClientTransport(new URL(endpoint), {
            requestInit: { headers: { Authorization: `Bearer ${token}` } },
          });
          await client.connect(transport, MCP_REQUEST);
          clients.push(client);
        }
        const [alice, bob] = clients as [Client, Client];
        const clicked = await alice.callTool(
          { name: "click", arguments: { text: "Sign in" } },
          undefined,
          MCP_REQUEST,
        );
        expect(clicked.isError, mcpResultText(clicked)).toBe(false);
        expect(
          mcpResultText(await alice.callTool({ name: "read_page", arguments: {} }, undefined, MCP_REQUEST)),
        ).toContain("Signed in as alice");
        // Bob reloads the same site: Alice's cookie is not his.
        await bob.callTool({ name: "navigate", arguments: { url } }, undefined, MCP_REQUEST);
        expect(
          mcpResultText(await bob.callTool({ name: "read_page", arguments: {} }, undefined, MCP_REQUEST)),
        ).toContain("Signed out");
      } finally {
        for (const client of clients) await client.close().catch(() => {});
        await stop(child);
      }
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});

/** Starts `webbrain mcp --port` and waits for the line that says where it listens (after the token's). */
function startHttpMcp(args: string[]): Promise<{ child: ChildProcess; endpoint: string; token: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, "mcp", ...args], { stdio: ["pipe", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
      const match = /serving \S+ tools at (http:\/\/\S+\/mcp);/.exec(stderr);
      const token = /token for this start: (\S+)/.exec(stderr)?.[1];
      if (match?.[1] && token) resolve({ child, endpoint: match[1], token });
    });
    child.on("exit", (code) => reject(new Error(`webbrain mcp exited (${code}): ${stderr}`)));
  });
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}
