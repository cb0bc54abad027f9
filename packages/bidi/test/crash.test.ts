import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  BidiConnectionClosedError,
  type BidiError,
  createTab,
  type FirefoxBrowser,
  launchFirefox,
} from "../src/index.js";
import { pathExists, processGroupAlive } from "./process-probe.js";

let browser: FirefoxBrowser;
beforeAll(async () => {
  // No default timeout: only the crash can settle the pending commands below.
  browser = await launchFirefox({ defaultTimeoutMs: 0 });
});
afterAll(async () => {
  await browser?.close();
});

describe("Firefox dying mid-command", () => {
  it("fails every pending command at once with a clear error and cleans up", async () => {
    const tab = await createTab(browser.client);
    const never = { expression: "new Promise(() => {})", target: { context: tab }, awaitPromise: true };
    const pending = [
      browser.client.send("script.evaluate", never),
      browser.client.send("script.evaluate", never),
      browser.client.sendUntyped("script.evaluate", never),
    ];
    const settled = Promise.allSettled(pending);
    await expect.poll(() => browser.client.pendingCount).toBe(3);
    process.kill(browser.pid, "SIGKILL");
    const results = await settled;
    for (const result of results) {
      expect(result.status).toBe("rejected");
      const err = (result as PromiseRejectedResult).reason as BidiError;
      expect(err).toBeInstanceOf(BidiConnectionClosedError);
      expect(err.code).toBe("connection closed");
      expect(err.message).toContain(`Firefox (pid ${browser.pid}) exited unexpectedly (signal SIGKILL)`);
    }
    const later = await browser.client.send("session.status", {}).catch((e: unknown) => e);
    expect(later).toBeInstanceOf(BidiConnectionClosedError);
    await browser.exited;
    expect(processGroupAlive(browser.pid)).toBe(false);
    expect(pathExists(browser.profileDir)).toBe(false);
    await browser.close(); // still fine after a crash
  });
});
