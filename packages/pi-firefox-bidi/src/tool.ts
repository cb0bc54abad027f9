/**
 * The `firefox_bidi` tool: schema, and one call from arguments to payload.
 *
 * Order of a call, cheapest refusal first, so a bad call never launches Firefox:
 * batch shape (<= 64 frames, <= 8 wait methods) -> screencastDir setting (only
 * when a frame starts a screencast) -> executablePath setting -> the binary on
 * disk -> launch options against the running browser -> launch if needed ->
 * the batch. Call-level problems throw (Pi reports them to the model as a
 * failed tool call); frame-level problems are reported inside the payload.
 */
import { StringEnum } from "@mariozechner/pi-ai";
import { FirefoxNotFoundError, resolveFirefoxExecutable } from "@webbrain/bidi";
import {
  type BatchFrameInput,
  checkBatchRequest,
  DEFAULT_FRAME_TIMEOUT_MS,
  DEFAULT_WAIT_TIMEOUT_MS,
  type JsonObject,
  MAX_FRAMES_PER_BATCH,
  MAX_WAIT_METHODS,
  type SpoolStore,
  type WaitRequest,
} from "@webbrain/bidi/batch";
import { type Static, Type } from "typebox";
import type { Access, BrowserHost } from "./browser-host.js";
import { type DebugLog, errorKind } from "./debug-log.js";
import { describeInvalid, type FirefoxBidiSettings } from "./settings.js";

export const TOOL_NAME = "firefox_bidi";
export const SCREENCAST_METHOD = "browsingContext.startScreencast";

export const toolParameters = Type.Object({
  frames: Type.Array(
    Type.Object({
      id: Type.Optional(
        Type.Number({
          description:
            "Frame id (non-negative integer). Omit it to get a fresh one; an id is never reusable.",
        }),
      ),
      method: Type.String({ description: 'BiDi command, e.g. "browsingContext.navigate".' }),
      params: Type.Optional(
        Type.Record(Type.String(), Type.Unknown(), {
          description: "Command params; may hold {{id.result.path}} references.",
        }),
      ),
    }),
    {
      description: `1 to ${MAX_FRAMES_PER_BATCH} raw BiDi command frames, sent in order; each waits for the previous answer.`,
    },
  ),
  wait: Type.Optional(
    Type.Union([Type.String(), Type.Array(Type.String())], {
      description: `Event method, or up to ${MAX_WAIT_METHODS}, to wait for after the frames; each listed method needs its own event. Subscribe first (session.subscribe).`,
    }),
  ),
  waitContext: Type.Optional(
    Type.String({ description: "Only events whose params.context equals this count for wait." }),
  ),
  waitTimeoutMs: Type.Optional(
    Type.Number({ description: `Wait timeout in ms (default ${DEFAULT_WAIT_TIMEOUT_MS}).` }),
  ),
  timeoutMs: Type.Optional(
    Type.Number({ description: `Per-frame response timeout in ms (default ${DEFAULT_FRAME_TIMEOUT_MS}).` }),
  ),
  headless: Type.Optional(
    Type.Boolean({ description: "Launch option (default true). Fixed while the browser runs." }),
  ),
  access: Type.Optional(
    StringEnum(["standard", "system"] as const, {
      description:
        'Launch option: "system" allows privileged (chrome) contexts. Default "standard". Fixed while the browser runs.',
    }),
  ),
});

export type ToolParams = Static<typeof toolParameters>;

export const TOOL_DESCRIPTION = [
  "Drive Firefox with raw W3C WebDriver BiDi command frames. Firefox launches on the first call (fresh temp profile, headless by default).",
  `Send 1-${MAX_FRAMES_PER_BATCH} frames {id?, method, params}; they run in order, each after the previous answered. The first failing frame stops the batch: later frames are reported as skipped and not sent.`,
  'A string param that is exactly "{{<id>.result.<path>}}" becomes that earlier frame\'s value with its JSON type; inside longer text only strings/numbers/booleans can be embedded; "{{{{...}}}}" sends a literal "{{...}}".',
  "wait: event method(s) to await after the frames (subscribe first with session.subscribe); only events arriving during this call count.",
  "The result is JSON: {session, frames: [{id, method, status, response | spooled | error | reason}], wait?, events}. Responses are verbatim. Results over 256 KiB are written to a file (frames[i].spooled.path).",
  "See the firefox-bidi skill for protocol details and worked batches.",
].join(" ");

export interface ToolRuntime {
  host: BrowserHost;
  spool: SpoolStore;
  debug: DebugLog;
  /** Settings resolved at session start; undefined before it. */
  settings(): FirefoxBidiSettings | undefined;
  env: Readonly<Record<string, string | undefined>>;
}

export interface ToolDetails {
  ok: number;
  failed: number;
  skipped: number;
  waitTimedOut: boolean;
  payloadBytes: number;
  spooledPaths: string[];
  launched: boolean;
}

export async function executeBatchCall(
  runtime: ToolRuntime,
  params: ToolParams,
  signal: AbortSignal | undefined,
): Promise<{ text: string; details: ToolDetails }> {
  const started = performance.now();
  const frames = (params.frames ?? []) as BatchFrameInput[];
  const waitMethods =
    params.wait === undefined ? [] : Array.isArray(params.wait) ? params.wait : [params.wait];
  let waitsTimedOut = 0;
  try {
    const wait: WaitRequest | undefined =
      waitMethods.length > 0 || params.wait !== undefined
        ? {
            methods: waitMethods,
            ...(params.waitContext !== undefined ? { context: params.waitContext } : {}),
            timeoutMs: params.waitTimeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS,
          }
        : undefined;
    const request = {
      frames: applyScreencastDir(frames, runtime.settings()),
      ...(wait ? { wait } : {}),
      frameTimeoutMs: params.timeoutMs ?? DEFAULT_FRAME_TIMEOUT_MS,
    };
    checkBatchRequest(request);
    // Only a launching call needs the binary (and fails on a bad executablePath).
    const executablePath = runtime.host.running ? "" : resolveExecutable(runtime);
    const requested: { headless?: boolean; access?: Access } = {};
    if (params.headless !== undefined) requested.headless = params.headless;
    if (params.access !== undefined) requested.access = params.access;
    const { running, launched } =
      runtime.host.reuse(requested) ?? (await runtime.host.acquire(requested, executablePath));
    const note = runtime.host.takeExitNote();
    const result = await running.batch.run({
      ...request,
      ...(signal ? { signal } : {}),
      sessionMetadata: {
        browser: running.browser.browserName,
        version: running.browser.browserVersion,
        pid: running.browser.pid,
        headless: running.options.headless,
        access: running.options.access,
        launchedThisCall: launched,
        ...(note ? { note } : {}),
        spool: {
          dir: (runtime.spool.hasDirectory ? await runtime.spool.directory() : undefined) ?? null,
          usedBytes: runtime.spool.usedBytes,
          quotaBytes: runtime.spool.quotaBytes,
        },
      } satisfies JsonObject,
    });
    if (result.counts.waitTimedOut) waitsTimedOut = 1;
    const spooledPaths: string[] = [];
    for (const frame of result.payload.frames) if ("spooled" in frame) spooledPaths.push(frame.spooled.path);
    // Built only when recording is on: the record object is per call, and recording is usually off.
    if (runtime.debug.enabled)
      runtime.debug.record({
        span: "batch",
        outcome: result.counts.failed > 0 || result.counts.waitTimedOut ? "error" : "ok",
        durationMs: Math.round(performance.now() - started),
        frames: frames.length,
        ok: result.counts.ok,
        failed: result.counts.failed,
        skipped: result.counts.skipped,
        waits: wait ? 1 : 0,
        waitsTimedOut,
        spooled: spooledPaths.length,
        payloadBytes: result.bytes,
      });
    return {
      text: result.text,
      details: { ...result.counts, payloadBytes: result.bytes, spooledPaths, launched },
    };
  } catch (error) {
    runtime.debug.record({
      span: "batch",
      outcome: "error",
      durationMs: Math.round(performance.now() - started),
      frames: frames.length,
      ok: 0,
      failed: 0,
      skipped: frames.length,
      waits: params.wait === undefined ? 0 : 1,
      waitsTimedOut,
      spooled: 0,
      payloadBytes: 0,
      errorKind: errorKind(error),
    });
    throw error;
  }
}

function resolveExecutable(runtime: ToolRuntime): string {
  const settings = runtime.settings();
  if (settings && !settings.executablePath.ok) {
    throw new Error(
      describeInvalid(
        "executablePath",
        settings.executablePath,
        "Firefox cannot be launched until the setting is fixed; then call firefox_bidi again.",
      ),
    );
  }
  return locateFirefox(settings, runtime.env);
}

/**
 * The binary to launch, by the settings precedence (FIREFOX_BIN, trusted
 * project, user), else `firefox` / `firefox-esr` on PATH. Throws
 * FirefoxNotFoundError whose message names the source that pointed at a bad path.
 */
export function locateFirefox(
  settings: FirefoxBidiSettings | undefined,
  env: Readonly<Record<string, string | undefined>>,
): string {
  const chosen = settings?.executablePath.ok ? settings.executablePath : undefined;
  if (chosen?.source === "env" && chosen.value !== undefined) {
    return resolveFirefoxExecutable(undefined, { FIREFOX_BIN: chosen.value, PATH: env.PATH });
  }
  try {
    return resolveFirefoxExecutable(chosen?.value, { PATH: env.PATH });
  } catch (error) {
    if (error instanceof FirefoxNotFoundError && chosen?.value !== undefined) {
      throw new FirefoxNotFoundError(
        `firefox-bidi.executablePath from ${chosen.origin}: ${error.message}`,
        error.tried,
      );
    }
    throw error;
  }
}

/**
 * Fills `destinationFolder` of browsingContext.startScreencast frames from the
 * screencastDir setting unless the frame gives one. An invalid setting fails
 * every call that carries such a frame (also one with its own destinationFolder:
 * the spec's rule names the call, and a broken setting should be seen at once),
 * and no other call.
 */
export function applyScreencastDir(
  frames: BatchFrameInput[],
  settings: FirefoxBidiSettings | undefined,
): BatchFrameInput[] {
  if (!settings || !frames.some((frame) => frame?.method === SCREENCAST_METHOD)) return frames;
  const setting = settings.screencastDir;
  if (!setting.ok) {
    throw new Error(
      describeInvalid(
        "screencastDir",
        setting,
        `This call carries ${SCREENCAST_METHOD}, so it was not sent; fix the setting and call again.`,
      ),
    );
  }
  const folder = setting.value;
  if (folder === undefined) return frames;
  return frames.map((frame) => {
    if (frame.method !== SCREENCAST_METHOD) return frame;
    const params: JsonObject = frame.params ?? {};
    if (Object.hasOwn(params, "destinationFolder")) return frame;
    return { ...frame, params: { ...params, destinationFolder: folder } };
  });
}
