/**
 * The Pi extension: registers `firefox_bidi`, `/firefox` and `--firefox`, and
 * ties the browser and the spool to the Pi session's life.
 *
 * Invariants:
 * - the tool is active only when enabled at session start (flag, env,
 *   trusted project or user setting) or after `/firefox`; `/firefox close`
 *   closes Firefox and deactivates it;
 * - settings are resolved once per session start; every invalid setting is
 *   reported then, as a warning, and behaves as the README lists;
 * - one spool store per extension instance (one Pi session), across browser
 *   relaunches; spool files survive `/firefox close` and are removed, with the
 *   browser, at `session_shutdown`;
 * - the tool runs with executionMode "sequential": two calls never drive the
 *   browser at once.
 */
import { randomBytes } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ExtensionAPI, type ExtensionContext, getAgentDir } from "@mariozechner/pi-coding-agent";
import { FirefoxNotFoundError, launchFirefox } from "@webbrain/bidi";
import { nodeSpoolFs, SpoolStore } from "@webbrain/bidi/batch";
import { BrowserHost, type BrowserLauncher } from "./browser-host.js";
import { DebugLog, debugFilePath, errorKind, fileDebugSink, selectDebug } from "./debug-log.js";
import { decideProjectTrust, ENV_TRUST_PROJECT } from "./project-trust.js";
import { describeInvalid, type FirefoxBidiSettings, resolveSettings, SETTINGS_SECTION } from "./settings.js";
import { projectSettingsPath, readSettingsFile, userSettingsPath } from "./settings-files.js";
import { executeBatchCall, locateFirefox, TOOL_DESCRIPTION, TOOL_NAME, toolParameters } from "./tool.js";

export const FLAG_NAME = "firefox";
export const COMMAND_NAME = "firefox";
export const SPOOL_PREFIX = "pi-firefox-bidi-spool-";

const launchWithBidi: BrowserLauncher = ({ executablePath, headless, args }) =>
  launchFirefox({ executablePath, headless, args });

export default function firefoxBidiExtension(pi: ExtensionAPI): void {
  const env = process.env;
  const debug = new DebugLog(randomBytes(4).toString("hex"));
  const spool = new SpoolStore({ fs: nodeSpoolFs, prefix: join(tmpdir(), SPOOL_PREFIX) });
  const host = new BrowserHost(launchWithBidi, spool, debug);
  let settings: FirefoxBidiSettings | undefined;

  function setToolActive(active: boolean): void {
    const names = pi.getActiveTools();
    if (active && !names.includes(TOOL_NAME)) pi.setActiveTools([...names, TOOL_NAME]);
    if (!active && names.includes(TOOL_NAME)) pi.setActiveTools(names.filter((name) => name !== TOOL_NAME));
  }

  /** A startup-style warning when no Firefox can be found; returns whether one was found. */
  function checkBinary(ctx: ExtensionContext): boolean {
    if (!settings?.executablePath.ok) return false;
    try {
      locateFirefox(settings, env);
      return true;
    } catch (error) {
      if (!(error instanceof FirefoxNotFoundError)) throw error;
      ctx.ui.notify(
        `firefox-bidi: ${error.message} firefox_bidi calls will fail until Firefox is found.`,
        "warning",
      );
      return false;
    }
  }

  pi.registerFlag(FLAG_NAME, {
    description: "Activate the firefox_bidi tool for this run (it can only turn the tool on).",
    type: "boolean",
  });

  pi.registerTool({
    name: TOOL_NAME,
    label: "Firefox BiDi",
    description: TOOL_DESCRIPTION,
    promptSnippet: "Drive Firefox with batches of raw WebDriver BiDi frames",
    promptGuidelines: [
      "Use firefox_bidi to drive Firefox; read the firefox-bidi skill before writing frames you are unsure of.",
    ],
    parameters: toolParameters,
    executionMode: "sequential",
    async execute(_toolCallId, params, signal) {
      const { text, details } = await executeBatchCall(
        { host, spool, debug, env, settings: () => settings },
        params,
        signal,
      );
      return { content: [{ type: "text", text }], details };
    },
  });

  pi.registerCommand(COMMAND_NAME, {
    description:
      "/firefox activates the firefox_bidi tool; /firefox close shuts Firefox down and deactivates it.",
    async handler(args, ctx) {
      const action = args.trim();
      const started = performance.now();
      const record = (outcome: "ok" | "error", error?: unknown) =>
        debug.record({
          span: "command",
          outcome,
          durationMs: Math.round(performance.now() - started),
          command: COMMAND_NAME,
          action: action === "" || action === "close" ? action || "open" : "unknown",
          ...(error ? { errorKind: errorKind(error) } : {}),
        });
      if (action === "") {
        setToolActive(true);
        checkBinary(ctx);
        ctx.ui.notify("firefox_bidi is active; Firefox launches on its first call.", "info");
        record("ok");
        return;
      }
      if (action === "close") {
        try {
          const closed = await host.close("command");
          setToolActive(false);
          ctx.ui.notify(
            `${closed ? "Firefox closed" : "No Firefox was running"}; firefox_bidi is inactive. Spool files stay until the Pi session ends.`,
            "info",
          );
          record("ok");
        } catch (error) {
          setToolActive(false);
          ctx.ui.notify(`firefox-bidi: closing Firefox failed: ${(error as Error).message}`, "error");
          record("error", error);
        }
        return;
      }
      ctx.ui.notify(
        `firefox-bidi: unknown argument ${JSON.stringify(action)}. Use /firefox or /firefox close.`,
        "error",
      );
      record("error", new TypeError("unknown argument"));
    },
  });

  pi.on("session_start", async (_event, ctx) => {
    const trust = decideProjectTrust(ctx, env);
    const [project, user] = await Promise.all([
      readSettingsFile(projectSettingsPath(ctx.cwd)),
      readSettingsFile(userSettingsPath(getAgentDir())),
    ]);
    settings = resolveSettings({
      flag: pi.getFlag(FLAG_NAME),
      env,
      projectTrusted: trust.trusted,
      project,
      user,
    });

    const debugSelection = selectDebug(env, user.kind === "parsed" ? user.data : undefined);
    debug.configure(debugSelection.enabled ? fileDebugSink(debugFilePath(getAgentDir())) : undefined);

    const warnings: string[] = [];
    if (trust.warning) warnings.push(trust.warning);
    if (debugSelection.warning) warnings.push(debugSelection.warning);
    if (!settings.enable.ok) {
      warnings.push(
        describeInvalid(
          "enable",
          settings.enable,
          "The firefox_bidi tool stays inactive; fix the value or run /firefox.",
        ),
      );
    }
    if (!settings.executablePath.ok) {
      warnings.push(
        describeInvalid(
          "executablePath",
          settings.executablePath,
          "firefox_bidi calls that launch Firefox will fail until it is fixed.",
        ),
      );
    }
    for (const warning of warnings) ctx.ui.notify(warning, "warning");
    if (!trust.trusted && project.kind !== "missing" && mentionsSection(project)) {
      ctx.ui.notify(
        `firefox-bidi: ignoring "${SETTINGS_SECTION}" in ${project.path} because the project is not trusted; set ${ENV_TRUST_PROJECT}=1 to use it.`,
        "info",
      );
    }

    const enabled = settings.enable.ok && settings.enable.value;
    setToolActive(enabled);
    if (enabled) checkBinary(ctx);
  });

  pi.on("session_shutdown", async () => {
    try {
      await host.close("session_shutdown");
    } catch {
      // The teardown record already says what failed; shutdown must go on to remove the spool.
    }
    await spool.dispose().catch(() => undefined);
    await debug.flush();
  });
}

function mentionsSection(file: { kind: string; data?: unknown }): boolean {
  if (file.kind === "unreadable") return true;
  return typeof file.data === "object" && file.data !== null && Object.hasOwn(file.data, SETTINGS_SECTION);
}
