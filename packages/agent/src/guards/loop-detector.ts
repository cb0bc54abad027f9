/**
 * Loop detector: notices an agent repeating actions that change nothing, nudges it once the
 * repetition is suspicious, and stops the run when it persists.
 *
 * "Looking is not looping" (DESIGN.md): observations (tree, screenshot, read_page, waits) are
 * never counted. They do feed the page fingerprint: an action only repeats if it runs again on
 * a page that looked the same (same URL, same last observation). Re-reading between clicks
 * and seeing a different page therefore resets the count; clicking blindly does not.
 *
 * Three detectors, each with a nudge and a stop threshold:
 * - general repeat: the same tool with the same arguments on the same page fingerprint;
 * - coordinate click: a call that clicks a point (the `clicksPoint` facet: `click {x, y}`)
 *   landing within COORD_RADIUS_PX of earlier ones;
 * - navigation: navigating to the same URL again and again (including A<->B ping-pong).
 */
import { toolSpec } from "../tools/tool-catalog.js";

/** Same action on an unchanged page: nudge at the 3rd, stop at the 5th. */
export const REPEAT_NUDGE_AT = 3;
export const REPEAT_STOP_AT = 5;
/** Coordinate clicks within this many CSS pixels count as the same spot. */
export const COORD_RADIUS_PX = 12;
export const COORD_NUDGE_AT = 3;
export const COORD_STOP_AT = 5;
/** Navigations to one URL (within the window): nudge at the 3rd, stop at the 5th. */
export const NAV_NUDGE_AT = 3;
export const NAV_STOP_AT = 5;
/** How many recent actions each detector looks back over. */
export const ACTION_WINDOW = 12;

export type LoopVerdict =
  | { kind: "ok" }
  | { kind: "nudge" | "stop"; detector: LoopDetectorName; message: string; subject: string; count: number };

export type LoopDetectorName = "repeat" | "coordinate" | "navigation";

interface ActionRecord {
  signature: string;
  fingerprint: string;
  point?: { x: number; y: number };
}

/** Stable JSON of arguments (sorted keys) so {a,b} and {b,a} are one action. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([key, entry]) => entry !== undefined && key !== "_allowResubmit")
      .sort(([a], [b]) => a.localeCompare(b));
    return `{${entries.map(([key, entry]) => `${JSON.stringify(key)}:${canonical(entry)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

function normalizeUrl(url: string): string {
  return url.replace(/#.*$/, "").replace(/\/$/, "");
}

/** Short non-cryptographic hash: fingerprints only need to tell pages apart. */
function hashText(text: string): string {
  let hash = 2166136261;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 16777619);
  }
  return (hash >>> 0).toString(36);
}

export class LoopDetector {
  private actions: ActionRecord[] = [];
  private navigations: string[] = [];
  private url = "";
  private observation = "";

  /** An observation's result: the page as the model last saw it. */
  observe(url: string, resultText: string): void {
    this.url = normalizeUrl(url);
    this.observation = hashText(resultText);
  }

  /**
   * The page reported what an action changed (the page layer's `effect`). The fingerprint
   * becomes that change, so an action that keeps changing the page differently is not a loop,
   * while one that flips between two states (open/close) still repeats and is caught.
   */
  actionChanged(description: string): void {
    this.observation = `effect:${hashText(description)}`;
  }

  /** The URL changed (navigation or a click that navigated). */
  setUrl(url: string): void {
    const next = normalizeUrl(url);
    if (next !== this.url) this.observation = "";
    this.url = next;
  }

  /** Record an action about to run and judge it. Observations must not be passed here. */
  recordAction(tool: string, args: Record<string, unknown>): LoopVerdict {
    const fingerprint = `${this.url}#${this.observation}`;
    const x = typeof args.x === "number" ? args.x : undefined;
    const y = typeof args.y === "number" ? args.y : undefined;
    const record: ActionRecord = { signature: `${tool}:${canonical(args)}`, fingerprint };
    if (toolSpec(tool)?.clicksPoint && x !== undefined && y !== undefined) record.point = { x, y };
    this.actions.push(record);
    if (this.actions.length > ACTION_WINDOW) this.actions.shift();

    if (record.point) {
      const { x: px, y: py } = record.point;
      const near = this.actions.filter(
        (action) =>
          action.point &&
          action.fingerprint === fingerprint &&
          Math.hypot(action.point.x - px, action.point.y - py) <= COORD_RADIUS_PX,
      ).length;
      const verdict = this.judge(
        "coordinate",
        near,
        COORD_NUDGE_AT,
        COORD_STOP_AT,
        `clicked near (${px}, ${py})`,
        `${px}, ${py}`,
      );
      if (verdict.kind !== "ok") return verdict;
    }
    const same = this.actions.filter(
      (action) => action.signature === record.signature && action.fingerprint === fingerprint,
    ).length;
    return this.judge(
      "repeat",
      same,
      REPEAT_NUDGE_AT,
      REPEAT_STOP_AT,
      `called ${tool} with the same arguments`,
      tool,
    );
  }

  /** Record a navigation target and judge it. */
  recordNavigation(url: string): LoopVerdict {
    const target = normalizeUrl(url);
    this.navigations.push(target);
    if (this.navigations.length > ACTION_WINDOW) this.navigations.shift();
    const count = this.navigations.filter((entry) => entry === target).length;
    return this.judge("navigation", count, NAV_NUDGE_AT, NAV_STOP_AT, `navigated to ${target}`, target);
  }

  /** Forget everything (new task or cleared conversation). */
  reset(): void {
    this.actions = [];
    this.navigations = [];
    this.url = "";
    this.observation = "";
  }

  private judge(
    detector: LoopDetectorName,
    count: number,
    nudgeAt: number,
    stopAt: number,
    what: string,
    subject: string,
  ): LoopVerdict {
    if (count >= stopAt) {
      return {
        kind: "stop",
        detector,
        subject,
        count,
        message: `Stopped: the agent ${what} ${count} times without the page changing. It is stuck; rephrase the task or do this step yourself.`,
      };
    }
    if (count >= nudgeAt) {
      return {
        kind: "nudge",
        detector,
        subject,
        count,
        message: `Loop warning: you ${what} ${count} times and the page looked the same each time. It is not working. Re-read the page (get_accessibility_tree or screenshot), then try a different element or approach, or call clarify / done explaining what blocks you.`,
      };
    }
    return { kind: "ok" };
  }
}
