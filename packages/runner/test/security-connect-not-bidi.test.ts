/**
 * `--connect ws://...` to a server that is not a WebDriver BiDi endpoint: a plain HTTP server
 * answering the WebSocket upgrade with 200 or 404 crashed Node with an unhandled 'error' event
 * (exit 1, a stack trace). Now it is a one-line BrowserUnavailableError and exit 3, for the
 * real `webbrain` bin against a real HTTP server.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "./run-cli.js";

const TEST_TIMEOUT_MS = 120_000;

let server: Server;
let port: number;
/** Upgrade requests the server saw, so the test knows the CLI really reached it. */
let upgradeRequests = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.headers.upgrade) upgradeRequests += 1;
    // `/missing` answers 404, anything else 200: both are "not a WebSocket server".
    res.writeHead(req.url?.startsWith("/missing") ? 404 : 200, { "content-type": "text/html" });
    res.end("<!doctype html><title>not BiDi</title>");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server?.close(() => resolve()));
});

describe("--connect to an HTTP server that is not BiDi", () => {
  for (const [status, path] of [
    [200, ""],
    [404, "/missing"],
  ] as const) {
    it(
      `answers HTTP ${status} to the upgrade: exit 3 and one line saying so, no stack trace`,
      async () => {
        const before = upgradeRequests;
        const run = await runCli(["snapshot", "about:blank", "--connect", `ws://127.0.0.1:${port}${path}`]);
        expect(upgradeRequests).toBeGreaterThan(before);
        expect(run.code, run.stderr).toBe(3);
        const lines = run.stderr.trim().split("\n");
        expect(lines, run.stderr).toHaveLength(1);
        expect(lines[0]).toContain(`answered HTTP ${status} instead of upgrading`);
        expect(lines[0]).toContain("not a WebDriver BiDi endpoint");
        expect(run.stderr).not.toMatch(/Unhandled 'error' event|\n\s+at /);
        expect(run.stdout).toBe("");
      },
      TEST_TIMEOUT_MS,
    );
  }
});
