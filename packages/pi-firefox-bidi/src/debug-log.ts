/**
 * Metadata-only diagnostics (DEBUG.md is the contract).
 *
 * Invariants:
 * - a record holds only the fields its type declares: span kind, outcome,
 *   durations, counts, sizes, launch options, the Firefox version and error
 *   class names. Never page content, frame params, results, event payloads or
 *   error messages (a message can quote page text);
 * - records of one process are appended in the order they were made;
 * - a failing write never fails the tool: it is dropped and counted.
 */
import { appendFile, mkdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { parseEnvBoolean } from "./settings.js";

export const ENV_DEBUG = "PI_FIREFOX_BIDI_DEBUG";
export const DEBUG_FILE_NAME = "firefox-bidi.jsonl";

export type Outcome = "ok" | "error";

export type DebugRecord =
  | {
      span: "launch";
      outcome: Outcome;
      durationMs: number;
      headless: boolean;
      access: string;
      browserVersion?: string;
      errorKind?: string;
    }
  | { span: "teardown"; outcome: Outcome; durationMs: number; reason: string; errorKind?: string }
  | {
      span: "command";
      outcome: Outcome;
      durationMs: number;
      command: string;
      action: string;
      errorKind?: string;
    }
  | {
      span: "batch";
      outcome: Outcome;
      durationMs: number;
      frames: number;
      ok: number;
      failed: number;
      skipped: number;
      waits: number;
      waitsTimedOut: number;
      spooled: number;
      payloadBytes: number;
      errorKind?: string;
    };

export interface DebugSink {
  append(line: string): Promise<void>;
}

export interface DebugSelection {
  enabled: boolean;
  basis: "env" | "user" | "default";
  warning?: string;
}

/** Env `PI_FIREFOX_BIDI_DEBUG` wins; else user-level `pi-ext.debug` (JSON boolean); else off. */
export function selectDebug(
  env: Readonly<Record<string, string | undefined>>,
  userSettings: unknown,
): DebugSelection {
  const raw = env[ENV_DEBUG];
  if (raw !== undefined) {
    const parsed = parseEnvBoolean(raw);
    if (parsed === undefined) {
      return {
        enabled: false,
        basis: "env",
        warning: `firefox-bidi: invalid ${ENV_DEBUG}=${JSON.stringify(raw)} (expected true, false, 1 or 0); debug records are off.`,
      };
    }
    return { enabled: parsed, basis: "env" };
  }
  const section = (userSettings as { "pi-ext"?: unknown } | null)?.["pi-ext"];
  if (section && typeof section === "object" && Object.hasOwn(section, "debug")) {
    const value = (section as { debug?: unknown }).debug;
    if (typeof value === "boolean") return { enabled: value, basis: "user" };
    return {
      enabled: false,
      basis: "user",
      warning: `firefox-bidi: invalid pi-ext.debug ${JSON.stringify(value)} in user settings (expected a JSON boolean); debug records are off.`,
    };
  }
  return { enabled: false, basis: "default" };
}

export function debugFilePath(agentDir: string): string {
  return join(agentDir, "debug", DEBUG_FILE_NAME);
}

export function fileDebugSink(path: string): DebugSink {
  let madeDir = false;
  return {
    async append(line) {
      if (!madeDir) {
        await mkdir(dirname(path), { recursive: true });
        madeDir = true;
      }
      await appendFile(path, line, "utf8");
    },
  };
}

export class DebugLog {
  #chain: Promise<void> = Promise.resolve();
  #dropped = 0;

  #sink: DebugSink | undefined;

  constructor(
    private readonly sessionTag: string,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Selects where records go from now on; undefined turns recording off. */
  configure(sink: DebugSink | undefined): void {
    this.#sink = sink;
  }

  get enabled(): boolean {
    return this.#sink !== undefined;
  }

  get dropped(): number {
    return this.#dropped;
  }

  record(record: DebugRecord): void {
    const sink = this.#sink;
    if (!sink) return;
    const line = `${JSON.stringify({ ts: this.now().toISOString(), ext: "firefox-bidi", session: this.sessionTag, pid: process.pid, ...record })}\n`;
    this.#chain = this.#chain.then(() =>
      sink.append(line).catch(() => {
        this.#dropped += 1;
      }),
    );
  }

  /** Resolves when every record made so far was written (or dropped). */
  flush(): Promise<void> {
    return this.#chain;
  }
}

/** The class name of an error, safe to log: never its message. */
export function errorKind(error: unknown): string {
  if (error instanceof Error) return error.name || error.constructor.name || "Error";
  return typeof error;
}
