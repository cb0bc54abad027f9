/**
 * Popups (issue 20, point 12): the automation prefs turned the popup blocker off, so a page
 * opened 50 tabs from one click and nothing said so. In real Firefox through the real
 * `webbrain exec` bin: a click on a button that calls `window.open` 50 times opens at most the
 * one popup the click allows, the page itself sees the other calls refused, and the click's
 * result reports the refused ones as `popups_blocked`.
 */
import { type FixtureServer, startFixtureServer } from "@webbrain/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "./run-cli.js";

const TEST_TIMEOUT_MS = 180_000;
const FLOOD = 50;

let server: FixtureServer;

beforeAll(async () => {
  server = await startFixtureServer();
});

afterAll(async () => {
  await server?.close();
});

interface Answer {
  tool: string;
  result: { success: boolean; new_tabs?: { tab_id: string; url: string }[]; popups_blocked?: number };
  text: string;
}

describe("a page that opens 50 tabs on click", () => {
  it(
    "gets at most one tab, and the click result says how many popups were blocked",
    async () => {
      const calls = [
        { tool: "read_page", args: {} },
        { tool: "click", args: { text: "Claim your prize" } },
        { tool: "read_page", args: {} },
      ];
      const run = await runCli(["exec", server.url("/runner/popup-flood.html")], {
        stdin: `${calls.map((call) => JSON.stringify(call)).join("\n")}\n`,
      });
      expect(run.code, run.stderr).toBe(0);
      const [before, click, after] = run.stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as Answer) as [Answer, Answer, Answer];

      expect(before.result.popups_blocked).toBeUndefined(); // nothing tried yet, nothing reported
      expect(click.result.success, click.text).toBe(true);
      const opened = click.result.new_tabs?.length ?? 0;
      expect(opened).toBeLessThanOrEqual(1);
      expect(click.result.popups_blocked).toBe(FLOOD - opened);
      expect(click.text).toContain(`"popups_blocked":${FLOOD - opened}`);
      // What the page saw agrees: the blocker refused every window.open but the one allowed.
      expect(after.text).toContain(`Opened ${opened} of ${FLOOD} tabs`);
      expect(after.result.popups_blocked).toBeUndefined(); // counted once, by the click
    },
    TEST_TIMEOUT_MS,
  );
});
