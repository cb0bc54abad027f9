/**
 * Downloads and new tabs as events, in real Firefox through `webbrain exec`: a click that
 * downloads says the file's name and size, a click that opens a tab or a popup says the new tab
 * and its URL, and the session goes on working after a download.
 */
import { type FixtureRoute, type FixtureServer, startFixtureServer } from "@webbrain/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useCliFirefox } from "./cli-firefox.js";
import { runCli } from "./run-cli.js";

const TEST_TIMEOUT_MS = 180_000;
const REPORT_BYTES = "month,total\njanuary,1200\nfebruary,1350\n".length;
/** How long the slow report's server waits before its headers: a loaded machine, made certain. */
const SLOW_HEADERS_MS = 2_000;
const SLOW_REPORT = "quarter,total\nq1,3900\n";

/** A report whose response starts late: Firefox knows the click downloads only once headers come. */
const slowReport: FixtureRoute = (_req, res) => {
  setTimeout(() => {
    res.writeHead(200, {
      "content-type": "text/csv",
      "content-disposition": 'attachment; filename="quarterly-report.csv"',
    });
    res.end(SLOW_REPORT);
  }, SLOW_HEADERS_MS);
};

const slowDownloadPage: FixtureRoute = (_req, res) => {
  res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
  res.end(
    '<!doctype html><title>Quarterly</title><h1>Quarterly</h1><a href="/runner/slow-report" download="quarterly-report.csv">Download the quarterly report</a>',
  );
};

const firefox = useCliFirefox();
let server: FixtureServer;

beforeAll(async () => {
  server = await startFixtureServer({
    routes: { "/runner/slow-report": slowReport, "/runner/slow-download.html": slowDownloadPage },
  });
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

  it(
    "reports a download whose response comes late: the click waits for its navigation to turn into the download",
    async () => {
      const run = await runCli(["exec", server.url("/runner/slow-download.html"), ...firefox.connectArgs()], {
        stdin: `${JSON.stringify({ tool: "click", args: { text: "Download the quarterly report" } })}\n`,
      });
      const [download] = run.stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as Answer) as [Answer];
      expect(download.result.success, download.text).toBe(true);
      expect(download.result.downloads, download.text).toEqual([
        expect.objectContaining({
          filename: "quarterly-report.csv",
          bytes: SLOW_REPORT.length,
          status: "complete",
        }),
      ]);
      expect(run.code, run.stderr).toBe(0);
    },
    TEST_TIMEOUT_MS,
  );
});
