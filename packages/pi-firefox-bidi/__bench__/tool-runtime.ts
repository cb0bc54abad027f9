/**
 * The tool's whole call path (executeBatchCall: checks, launch-option check,
 * batch engine, payload) over an already connected BiDi session, so a
 * benchmark times exactly what a Pi tool call runs, minus Pi itself.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BidiSession, FirefoxBrowser } from "@webbrain/bidi";
import { nodeSpoolFs, SpoolStore } from "@webbrain/bidi/batch";
import { BrowserHost } from "../src/browser-host.js";
import { DebugLog } from "../src/debug-log.js";
import { resolveSettings } from "../src/settings.js";
import { executeBatchCall, type ToolParams, type ToolRuntime } from "../src/tool.js";

export interface BenchTool {
  /** One tool call; `signal` as Pi hands one to every tool call. */
  run(params: ToolParams, signal?: AbortSignal): Promise<{ text: string }>;
  /** Milliseconds the last `run` spent inside BidiClient.sendUntyped (only with `timeRoundTrips`). */
  lastRoundTripMs(): number;
  dispose(): Promise<void>;
}

export interface BenchToolOptions {
  /**
   * Wrap BidiClient.sendUntyped to sum the time spent in it per run (lastRoundTripMs). The wrapper
   * itself costs time inside the measured path, so the hot-path bench leaves it off.
   */
  timeRoundTrips?: boolean;
}

export async function toolOverSession(
  session: BidiSession,
  executablePath: string,
  options: BenchToolOptions = {},
): Promise<BenchTool> {
  // Time spent waiting on the socket, summed per run, to split a batch into round trips and tool work.
  let roundTripMs = 0;
  if (options.timeRoundTrips) {
    const sendUntyped = session.client.sendUntyped.bind(session.client);
    session.client.sendUntyped = async (method, params, sendOptions) => {
      const started = performance.now();
      try {
        return await sendUntyped(method, params, sendOptions);
      } finally {
        roundTripMs += performance.now() - started;
      }
    };
  }
  const root = await mkdtemp(join(tmpdir(), "ffbidi-bench-"));
  const spool = new SpoolStore({ fs: nodeSpoolFs, prefix: join(root, "spool-") });
  const debug = new DebugLog("bench");
  const browser: FirefoxBrowser = {
    client: session.client,
    wsEndpoint: "",
    pid: 0,
    profileDir: "",
    sessionId: session.sessionId ?? "",
    browserName: session.browserName,
    browserVersion: session.browserVersion,
    close: () => session.close(),
    exited: new Promise<void>(() => undefined),
  };
  const host = new BrowserHost(async () => browser, spool, debug);
  const settings = resolveSettings({
    flag: true,
    env: { FIREFOX_BIN: executablePath },
    projectTrusted: false,
    project: { kind: "missing", path: "" },
    user: { kind: "missing", path: "" },
  });
  const runtime: ToolRuntime = { host, spool, debug, env: process.env, settings: () => settings };
  return {
    run: (params, signal) => {
      roundTripMs = 0;
      return executeBatchCall(runtime, params, signal);
    },
    lastRoundTripMs: () => roundTripMs,
    dispose: async () => {
      await host.close("bench");
      await spool.dispose();
      await rm(root, { recursive: true, force: true });
    },
  };
}
