/**
 * Downloads and new tabs as events, in real Firefox through `webbrain exec`: a click that
 * downloads says the file's name and size, a click that opens a tab or a popup says the new tab
 * and its URL, and the session goes on working after a download.
 */
import { type FixtureServer, startFixtureServer } from "@webbrain/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useCliFirefox } from "./cli-firefox.js";
import { runCli } from "./run-cli.js";

const TEST_TIMEOUT_MS = 180_000;
const REPORT_BYTES = "month,total\njanuary,1200\nfebruary,1350\n".length;

const firefox = useCliFirefox();
let server: FixtureServer;

beforeAll(async () => {
  server = await startFixtureServer();
});

afterAll(async () => {
  await server?.close();
});

interface Answer {
  tool: string;
  result: {
    success: boolean;
    downloads?: { filename: string; bytes?: number; status: string; path?: string }[];
    new_tabs?: { tab_id: string; url: string }[];
  };
  text: string;
}

describe("download and popup events in click results", () => {
  it(
    "reports a download with its name and size, then a new tab and a popup with their URLs",
    async () => {
      const calls = [
        { tool: "click", args: { text: "Download report" } },
        { tool: "read_page", args: {} },
        { tool: "click", args: { text: "Open checkout in a new tab" } },
        { tool: "click", args: { text: "Open account popup" } },
      ];
      const run = await runCli(
        ["exec", server.url("/runner/downloads-popups.html"), ...firefox.connectArgs()],
        {
          stdin: `${calls.map((call) => JSON.stringify(call)).join("\n")}\n`,
        },
      );
      const answers = run.stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as Answer);
      const [download, page, newTab, popup] = answers as [Answer, Answer, Answer, Answer];

      expect(download.result.success, download.text).toBe(true);
      expect(download.result.downloads).toEqual([
        expect.objectContaining({ filename: "monthly-report.txt", bytes: REPORT_BYTES, status: "complete" }),
      ]);
      expect(download.text).toContain("monthly-report.txt");
      // The download did not navigate or break the session.
      expect(page.result.success).toBe(true);
      expect(page.text).toContain("Reports");

      expect(newTab.result.new_tabs).toEqual([
        { tab_id: expect.any(String), url: server.url("/runner/trusted-only.html") },
      ]);
      expect(popup.result.new_tabs).toEqual([
        { tab_id: expect.any(String), url: server.url("/runner/account-login.html") },
      ]);
      expect(run.code, run.stderr).toBe(0);
    },
    TEST_TIMEOUT_MS,
  );
});
