/**
 * The add-on's BrowserPort in real Firefox: builds the add-on, adds a test-only page that holds
 * a WebExtBrowserPort (test/port-probe/probe-page.ts, bundled like the add-on's own pages), installs
 * it over BiDi and calls the port from that page. The port then works through the add-on's real
 * manifest, permissions and content scripts in every frame, as it does in the background page.
 */

import { writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type BidiClient, evaluate } from "@webbrain/bidi";
import type { Mode, Tier } from "@webbrain/protocol";
import { type FixtureRoute, type FixtureServer, setupFirefox, startFixtureServer } from "@webbrain/testkit";
import { build } from "esbuild";
import { afterAll, beforeAll } from "vitest";
import {
  ADDON_PREFS,
  buildAddon,
  firefoxTabId,
  installAddon,
  openAddonPage,
  until,
  waitForContext,
} from "./addon-harness.js";

const PROBE_ENTRY = join(dirname(fileURLToPath(import.meta.url)), "port-probe", "probe-page.ts");
const PROBE_PAGE = "port-probe.html";

/** Builds the add-on with the probe page into a temp folder; `remove()` deletes it. */
export async function buildAddonWithProbe(): Promise<{ dir: string; remove(): Promise<void> }> {
  const addon = await buildAddon();
  try {
    await build({
      entryPoints: { "port-probe": PROBE_ENTRY },
      outdir: addon.dir,
      bundle: true,
      format: "iife",
      platform: "browser",
      target: ["firefox140"],
      // pi-ai's Mistral provider (never loaded here) imports this optional package, which is not
      // installed; the add-on's own build stubs the module out, the probe just leaves it unresolved.
      external: ["@opentelemetry/api"],
      logLevel: "warning",
    });
    await writeFile(
      join(addon.dir, PROBE_PAGE),
      '<!doctype html><meta charset="utf-8"><title>port probe</title><script src="port-probe.js"></script>\n',
    );
  } catch (error) {
    await addon.remove();
    throw error;
  }
  return addon;
}

/** How a stopped call ended: rejected (with the error's name, ms after Stop) or resolved anyway. */
export type StoppedCall =
  | { ended: "rejected"; name: string; afterStopMs: number }
  | { ended: "resolved"; value: unknown };

/** A tool call's answer: what the model reads and the structured details. */
export interface ExecutedTool {
  isError: boolean;
  text: string;
  details: (Record<string, unknown> & { success?: boolean; error?: string }) | null;
}

export interface PortProbe {
  /** The probe page's BiDi context (an add-on page: `browser.*` works there). */
  readonly context: string;
  /** Calls `port[method](...args)` in the add-on and answers its JSON result. */
  call<T = Record<string, unknown>>(method: string, ...args: unknown[]): Promise<T>;
  /** Runs one tool call through the agent's ToolExecutor over this port, in tab `tabId`. */
  execute(
    tool: string,
    args: Record<string, unknown>,
    tabId: string,
    mode: Mode,
    tier: Tier,
  ): Promise<ExecutedTool>;
  /** The tools a mode and tier offer on this port. */
  offered(mode: Mode, tier: Tier): Promise<string[]>;
  /** The capabilities the port declares. */
  capabilities(): Promise<string[]>;
  /** Calls `port[method](...args, {signal})` and stops it after `stopAfterMs`. */
  callStopped(method: string, args: unknown[], stopAfterMs: number): Promise<StoppedCall>;
  /** The Firefox tab id (as the port's TabId) of the tab showing exactly `url`. */
  tabIdOf(url: string): Promise<string>;
}

/** Installs the built add-on and opens the probe page from the settings page it opens at install. */
export async function openPortProbe(client: BidiClient, dir: string): Promise<PortProbe> {
  await installAddon(client, dir);
  const settings = await waitForContext(client, (url) => url.includes("/settings.html"), "the settings page");
  const context = await openAddonPage(client, settings, PROBE_PAGE);
  await until(() => evaluate<boolean>(client, context, "typeof webbrainProbe === 'object'"), {
    message: "the port probe page did not start",
  });
  return {
    context,
    async call<T>(method: string, ...args: unknown[]): Promise<T> {
      const json = await evaluate<string>(
        client,
        context,
        `webbrainProbe.call(${JSON.stringify(method)}, ${JSON.stringify(args)})`,
        { awaitPromise: true },
      );
      return JSON.parse(json) as T;
    },
    async execute(tool, args, tabId, mode, tier): Promise<ExecutedTool> {
      const json = await evaluate<string>(
        client,
        context,
        `webbrainProbe.execute(${[tool, args, tabId, mode, tier].map((v) => JSON.stringify(v)).join(", ")})`,
        { awaitPromise: true },
      );
      return JSON.parse(json) as ExecutedTool;
    },
    async offered(mode: Mode, tier: Tier): Promise<string[]> {
      return JSON.parse(
        await evaluate<string>(
          client,
          context,
          `webbrainProbe.offered(${JSON.stringify(mode)}, ${JSON.stringify(tier)})`,
        ),
      ) as string[];
    },
    async capabilities(): Promise<string[]> {
      return JSON.parse(await evaluate<string>(client, context, "webbrainProbe.capabilities()")) as string[];
    },
    async callStopped(method: string, args: unknown[], stopAfterMs: number): Promise<StoppedCall> {
      const json = await evaluate<string>(
        client,
        context,
        `webbrainProbe.callStopped(${JSON.stringify(method)}, ${JSON.stringify(args)}, ${stopAfterMs})`,
        { awaitPromise: true },
      );
      return JSON.parse(json) as StoppedCall;
    },
    async tabIdOf(url: string): Promise<string> {
      return String(await firefoxTabId(client, context, url));
    },
  };
}

export interface ProbedAddon {
  fixtures: FixtureServer;
  probe: PortProbe;
}

/**
 * A test file over the port probe: the add-on built with the probe, a fixture server (with
 * `routes`, which may be made when the file starts), a Firefox with the add-on's prefs and the
 * probe open in it; `ready` gets the server and the probe once they are. Everything is closed
 * after the file. Answers the file's Firefox.
 */
export function useProbedAddon(
  ready: (probed: ProbedAddon) => void,
  routes: () => Record<string, FixtureRoute> | Promise<Record<string, FixtureRoute>> = () => ({}),
): ReturnType<typeof setupFirefox> {
  let addon: Awaited<ReturnType<typeof buildAddonWithProbe>> | undefined;
  let fixtures: FixtureServer | undefined;
  beforeAll(async () => {
    addon = await buildAddonWithProbe();
    fixtures = await startFixtureServer({ routes: await routes() });
  });
  afterAll(async () => {
    await fixtures?.close();
    await addon?.remove();
  });
  const firefox = setupFirefox({ prefs: ADDON_PREFS });
  beforeAll(async () => {
    ready({ fixtures: fixtures!, probe: await openPortProbe(firefox.client, addon!.dir) });
  });
  return firefox;
}
