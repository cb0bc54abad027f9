/**
 * A workflow from a person's demonstration: the page layer's recorder reports what they did
 * (@webbrain/protocol RecordedAction), this turns it into the steps a saved workflow has, so the
 * replay (workflow-replay.ts) runs a recording exactly as it runs a workflow saved from a trace.
 *
 * Each action becomes the tool call an agent would have made (a click: click_ax; typed text and
 * a select's choice: type_ax), with its target described from the tree's nodes at that moment
 * (describeRef, the code replay finds targets with), and goes through the trace builder's
 * stepsFromCalls: typed text becomes a `{{parameter}}` named after the field's label, a secret a
 * parameter with no value that every replay asks for.
 *
 * Invariants:
 * - Typing into one field with nothing between is one step: the last text counts.
 * - A document navigation that starts within NAVIGATION_CAUSE_MS of a recorded click is that
 *   click's doing (its step expects to navigate); one that starts later is the person's own (a
 *   typed address: a navigate step).
 * - An action whose element the tree did not print is left out and counted in `skipped`; a
 *   step that cannot be found again is worse than one missing.
 */
import { placeTreeNodes, type RecordedAction, type ToolName } from "@webbrain/protocol";
import { SECRET_PLACEHOLDER } from "../guards/secret-values.js";
import type { TraceToolCall } from "../traces/trace-format.js";
import { stepsFromCalls } from "./workflow-builder.js";
import { WORKFLOW_FORMAT_VERSION, type Workflow, WorkflowError } from "./workflow-format.js";
import { describeRef, formatTarget, type TargetDescriptor } from "./workflow-target.js";

/**
 * How long after a click a document navigation still counts as the click's: a submit posts and
 * the next document starts within milliseconds; a person typing an address takes seconds.
 */
export const NAVIGATION_CAUSE_MS = 3000;

/**
 * The tool call each kind of recorded step becomes: what an agent would have called for it (a
 * click by ref; typed text and a select's choice by ref; an address the person typed).
 */
const RECORDED_AS = {
  click: "click_ax",
  entry: "type_ax",
  navigation: "navigate",
} as const satisfies Record<string, ToolName>;

type RecordedStep = keyof typeof RECORDED_AS;

export interface RecordingOptions {
  name?: string;
  now?: () => number;
}

function sameTarget(a: TargetDescriptor | undefined, b: TargetDescriptor | undefined): boolean {
  return a !== undefined && b !== undefined && formatTarget(a) === formatTarget(b);
}

export class WorkflowRecording {
  readonly startUrl: string;
  /** Each step as the tool call it becomes, with what it was recorded from. */
  readonly #steps: { from: RecordedStep; call: TraceToolCall }[] = [];
  readonly #now: () => number;
  #skipped = 0;
  #lastClickAt = Number.NEGATIVE_INFINITY;
  #url: string;

  constructor(startUrl: string, now: () => number = Date.now) {
    this.startUrl = startUrl;
    this.#url = startUrl;
    this.#now = now;
  }

  get steps(): number {
    return this.#steps.length;
  }

  /** Actions left out because their element had no line in the tree. */
  get skipped(): number {
    return this.#skipped;
  }

  /**
   * Adds one recorded action; answers the step as a line for the person (undefined: left out,
   * or the end of the recording).
   */
  add(action: RecordedAction): string | undefined {
    if (action.kind === "end") return undefined;
    const target = describeRef(placeTreeNodes(action.nodes), action.ref);
    if (!target) {
      this.#skipped++;
      return undefined;
    }
    if (action.kind === "click") {
      this.#push("click", { ref_id: action.ref }, target, action.url);
      this.#lastClickAt = this.#now();
      return `click ${formatTarget(target)}`;
    }
    const secret = action.kind === "type" && action.secret === true;
    const last = this.#steps.at(-1);
    if (last?.from === "entry" && sameTarget(last.call.target, target)) this.#steps.pop();
    this.#push(
      "entry",
      { ref_id: action.ref, value: secret ? SECRET_PLACEHOLDER : action.value },
      target,
      action.url,
      secret ? { secret: true } : {},
    );
    return `${action.kind} into ${formatTarget(target)}${secret ? " (a secret: not recorded)" : ""}`;
  }

  /**
   * A document navigation of the recorded tab started: the last click's doing (its step now
   * expects to navigate), or the person's own (answers the navigate step's line). `byPerson`:
   * what the browser says of its cause, where it says (the add-on's transition types); else the
   * time since the last click decides.
   */
  navigationStarted(url: string, byPerson?: boolean): string | undefined {
    const from = this.#url;
    this.#url = url;
    const last = this.#steps.at(-1);
    const byClick =
      byPerson === undefined ? this.#now() - this.#lastClickAt <= NAVIGATION_CAUSE_MS : !byPerson;
    if (last?.from === "click" && byClick) {
      last.call.result = { ...last.call.result, effect: { changed: true, changes: ["url changed"] } };
      this.#lastClickAt = Number.NEGATIVE_INFINITY;
      return undefined;
    }
    this.#push("navigation", { url }, undefined, from);
    return `navigate to ${url}`;
  }

  toWorkflow(options: RecordingOptions = {}): Workflow {
    if (this.#steps.length === 0) {
      throw new WorkflowError(
        "The recording has no steps: nothing was clicked, typed or chosen on the page before it ended.",
      );
    }
    const params: Workflow["params"] = [];
    const calls = this.#steps.map((step) => step.call);
    const steps = stepsFromCalls(calls, { byValue: new Map(), params, used: new Set() });
    const createdAt = new Date((options.now ?? this.#now)()).toISOString();
    return {
      webbrainWorkflow: WORKFLOW_FORMAT_VERSION,
      name: options.name?.trim() || `Recorded on ${hostOf(this.startUrl)}`,
      createdAt,
      fromRun: `recording ${createdAt}`,
      startUrl: this.startUrl,
      params,
      steps,
    };
  }

  #push(
    from: RecordedStep,
    args: Record<string, unknown>,
    target: TargetDescriptor | undefined,
    url: string,
    result: Record<string, unknown> = {},
  ): void {
    const call: TraceToolCall = {
      v: 1,
      type: "tool_call",
      at: new Date(this.#now()).toISOString(),
      id: `recorded-${this.#steps.length + 1}`,
      name: RECORDED_AS[from],
      args,
      ok: true,
      ms: 0,
      text: "",
      result,
      url,
      ...(target ? { target } : {}),
    };
    this.#steps.push({ from, call });
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host || url;
  } catch {
    return url;
  }
}
