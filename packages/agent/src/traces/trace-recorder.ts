/**
 * TraceRecorder: turns one agent run into trace records (trace-format.ts) as it happens.
 *
 * It listens at three seams, none of which changes what the agent does:
 * - `onEvent`: the run's AgentEvents (tool calls and results, plan, nudges, the end);
 * - `llm(inner)`: an LlmClient decorator timing each model call (and keeping the request in
 *   Deep verbose);
 * - `port(inner)`: a BrowserPort decorator that keeps each page action's structured result, the
 *   screenshots the model saw, and what a `ref_id` pointed at (role, name, where) from the
 *   newest tree read on that page, so a saved workflow can find the element again.
 * Records go to `sink` one by one (the runner writes lines at once; the add-on stores the run).
 *
 * Step screenshots (opt-in, `shots`): at the first page action of each tool call, before it acts,
 * the port takes a small viewport JPEG and the page layer says where the acted-on element is
 * (inspect_element_styles: rect and viewport, read-only), so a viewer can draw the action on the
 * page as it was. A shot over `shots.maxBytes` is taken again at lower qualities and, still too
 * big, not kept (counted in a note). Shots never change what the agent sees or does.
 *
 * Secrets (secret-values.ts): when a page action reports it typed into a secret field, the typed
 * text is learned; the call's record holds SECRET_PLACEHOLDER, and from then on the text is cut
 * out of every record, those already made included (`records` is scrubbed in place and
 * `rescrubbed` says so, for a sink that already wrote the older ones).
 */
import { placeTreeNodes, TREE_NODES_PARAM, treeNodesOf } from "@webbrain/protocol";
import { isSecretResult, redactTypedArg, SecretScrubber, typedValue } from "../guards/secret-values.js";
import type { AgentEvent } from "../loop/agent-events.js";
import { base64Bytes } from "../loop/image-budget.js";
import type { LlmCallOptions, LlmClient, LlmRequest } from "../providers/provider-client.js";
import type { BrowserPort, JsonValue, PageResult, TabInfo } from "../tools/browser-port.js";
import { decoratePort } from "../tools/port-decorator.js";
import { toolSpec } from "../tools/tool-catalog.js";
import { describeNode, type TargetDescriptor } from "../workflows/workflow-target.js";
import {
  TRACE_FORMAT_VERSION,
  TRACE_RESULT_MAX_CHARS,
  type TraceBox,
  type TraceImage,
  type TraceRecord,
  type TraceRunStart,
  type TraceShot,
  type TraceToolCall,
} from "./trace-format.js";

/** Screenshots kept per run; later ones are counted in a note, not stored. */
export const TRACE_MAX_IMAGES = 12;

export type TraceVerbosity = TraceRunStart["verbose"];

export interface TraceStart {
  task: string;
  mode: string;
  url: string;
  provider?: string;
  model?: string;
  verbose?: TraceVerbosity;
  runId?: string;
  /** Keep a screenshot per step, each at most this many bytes. */
  shots?: { maxBytes: number };
}

/** JPEG qualities a step shot is tried at, best first, until one fits the byte cap. */
export const TRACE_SHOT_QUALITIES: readonly number[] = [0.5, 0.3, 0.15];

/** A click at a point (no element) is drawn as a box this many CSS pixels wide around it. */
const POINT_BOX_PX = 16;

function finiteNumber(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

function boxOf(value: unknown): TraceBox | undefined {
  if (!value || typeof value !== "object") return undefined;
  const { x, y, width, height } = value as Record<string, unknown>;
  const box = [finiteNumber(x), finiteNumber(y), finiteNumber(width), finiteNumber(height)];
  if (box.some((n) => n === undefined)) return undefined;
  const [bx, by, bw, bh] = box.map((n) => Math.round(n!)) as [number, number, number, number];
  return { x: bx, y: by, width: bw, height: bh };
}

interface PendingCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
  started: number;
  url: string;
  result?: Record<string, unknown>;
  target?: TargetDescriptor;
  images: TraceImage[];
  /** The step screenshot was taken (or tried) for this call. */
  shotTried?: boolean;
  shot?: TraceShot;
  /** The call typed into a secret field. */
  secret?: boolean;
}

/** Record fields that never hold page or model text, left as they are by the scrub. */
const UNSCRUBBED_FIELDS: ReadonlySet<string> = new Set(["v", "type", "at", "runId", "id", "images", "shot"]);

function capResult(result: PageResult): Record<string, unknown> {
  const json = JSON.stringify(result);
  if (json.length <= TRACE_RESULT_MAX_CHARS) return result as Record<string, unknown>;
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(result)) {
    kept[key] = typeof value === "string" && value.length > 1000 ? `${value.slice(0, 1000)}…` : value;
  }
  return JSON.stringify(kept).length <= TRACE_RESULT_MAX_CHARS
    ? { ...kept, truncated: true }
    : { success: result.success, truncated: true };
}

export class TraceRecorder {
  readonly records: TraceRecord[] = [];
  private readonly now: () => number;
  private readonly verbose: TraceVerbosity;
  private pending: PendingCall | undefined;
  private step = 0;
  private imagesKept = 0;
  private imagesDropped = 0;
  private readonly shotMaxBytes: number | undefined;
  private shotsTooBig = 0;
  /** ref -> what it was, per tab and page URL, from every tree read there. */
  private readonly refs = new Map<string, Map<string, TargetDescriptor>>();
  private readonly secrets = new SecretScrubber();
  /** A secret was learned after records holding it were made (and scrubbed since). */
  rescrubbed = false;

  constructor(
    start: TraceStart,
    private readonly sink: (record: TraceRecord) => void = () => {},
    now: () => number = Date.now,
  ) {
    this.now = now;
    this.verbose = start.verbose ?? "normal";
    this.shotMaxBytes = start.shots?.maxBytes;
    this.emit({
      type: "run_start",
      runId: start.runId ?? `${now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`,
      task: start.task,
      mode: start.mode,
      url: start.url,
      ...(start.provider ? { provider: start.provider } : {}),
      ...(start.model ? { model: start.model } : {}),
      verbose: this.verbose,
      ...(start.shots ? { shots: { maxBytes: start.shots.maxBytes } } : {}),
    });
  }

  get runId(): string {
    return (this.records[0] as TraceRunStart).runId;
  }

  get finished(): boolean {
    return this.records.at(-1)?.type === "run_end";
  }

  /** Learns a typed secret; records made before it are scrubbed again. */
  private learnSecret(value: string | undefined): void {
    if (value === undefined || !this.secrets.add(value)) return;
    for (let i = 0; i < this.records.length; i++) {
      const before = this.records[i]!;
      const after = this.secrets.scrub(before, UNSCRUBBED_FIELDS);
      if (JSON.stringify(after) !== JSON.stringify(before)) {
        this.records[i] = after;
        this.rescrubbed = true;
      }
    }
  }

  private emit(record: Record<string, unknown> & { type: TraceRecord["type"] }): void {
    const full = this.secrets.scrub(
      { v: TRACE_FORMAT_VERSION, at: new Date(this.now()).toISOString(), ...record },
      UNSCRUBBED_FIELDS,
    ) as TraceRecord;
    this.records.push(full);
    this.sink(full);
  }

  onEvent(event: AgentEvent): void {
    switch (event.type) {
      case "step":
        this.step = event.step;
        return;
      case "plan":
        this.emit({ type: "plan", plan: event.plan });
        return;
      case "nudge":
        this.emit({ type: "note", text: `${event.detector}: ${event.message}` });
        return;
      case "tool_call":
        this.pending = {
          id: event.id,
          name: event.name,
          args: event.args,
          started: this.now(),
          url: "",
          images: [],
        };
        return;
      case "tool_result":
        if (event.secret && this.pending?.id === event.id) {
          this.pending.secret = true;
          this.learnSecret(typedValue(this.pending.name, this.pending.args));
        }
        this.finishCall(event.id, event.ok, event.preview);
        return;
      case "run_end": {
        if (this.imagesDropped > 0)
          this.emit({ type: "note", text: `${this.imagesDropped} later screenshots were not kept.` });
        if (this.shotsTooBig > 0)
          this.emit({
            type: "note",
            text: `${this.shotsTooBig} step screenshots were over ${this.shotMaxBytes} bytes even at the lowest quality and were not kept.`,
          });
        const { result } = event;
        this.emit({
          type: "run_end",
          status: result.status,
          text: result.text,
          steps: result.steps,
          ...(result.error ? { error: { kind: result.error.kind, message: result.error.message } } : {}),
        });
        return;
      }
      default:
        return;
    }
  }

  /** Ends a run that died without a run_end event (a crash, Firefox gone). */
  fail(message: string): void {
    if (this.finished) return;
    this.emit({
      type: "run_end",
      status: "error",
      text: message,
      steps: this.step,
      error: { kind: "internal", message },
    });
  }

  private finishCall(id: string, ok: boolean, preview: string): void {
    const call = this.pending;
    this.pending = undefined;
    if (!call || call.id !== id) return;
    const record: Omit<TraceToolCall, "v" | "at"> = {
      type: "tool_call",
      id,
      name: call.name,
      args: call.secret ? redactTypedArg(call.name, call.args) : call.args,
      ok,
      ms: this.now() - call.started,
      text: preview,
      url: call.url,
      ...(call.result ? { result: call.result } : {}),
      ...(call.target ? { target: call.target } : {}),
      ...(call.images.length ? { images: call.images } : {}),
      ...(call.shot ? { shot: call.shot } : {}),
    };
    this.emit(record);
  }

  /** An LlmClient that records each call's time, tokens and (Deep verbose) request. */
  llm(inner: LlmClient): LlmClient {
    return {
      get config() {
        return inner.config;
      },
      complete: async (request: LlmRequest, options?: LlmCallOptions) => {
        const started = this.now();
        const message = await inner.complete(request, options);
        this.emit({
          type: "model_call",
          step: this.step,
          ms: this.now() - started,
          input: message.usage?.input ?? 0,
          output: message.usage?.output ?? 0,
          stopReason: message.stopReason,
          ...(this.verbose === "deep"
            ? {
                request: {
                  systemPrompt: request.systemPrompt,
                  messages: request.messages,
                  tools: request.tools.map((tool) => tool.name),
                },
              }
            : {}),
        });
        return message;
      },
    };
  }

  /**
   * A BrowserPort that behaves exactly as `inner` and lets the recorder see page results and
   * screenshots.
   */
  port<P extends BrowserPort>(inner: P): P {
    const pageAction: BrowserPort["pageAction"] = async (tabId, name, params, ...rest) => {
      const tab = await inner.getTab(tabId).catch((): TabInfo | undefined => undefined);
      const url = tab?.url ?? "";
      const call = this.pending;
      if (call && this.shotMaxBytes !== undefined && !call.shotTried) {
        call.shotTried = true;
        const signal = rest[0]?.signal;
        const shot = await this.takeShot(inner, tabId, name, params, signal).catch(() => undefined);
        if (shot) call.shot = shot;
      }
      if (call) {
        call.url = url;
        const ref = params.ref_id;
        if (ref !== undefined && ref !== null) {
          const target = this.refs.get(`${tabId} ${url}`)?.get(String(ref));
          if (target) call.target = target;
        }
      }
      const result = toolSpec(name)?.answersTree
        ? this.learnTree(tabId, url, await inner.pageAction(tabId, name, withNodes(params), ...rest), params)
        : await inner.pageAction(tabId, name, params, ...rest);
      if (call && isSecretResult(result)) {
        call.secret = true;
        this.learnSecret(typedValue(name, params));
      }
      if (call && name !== "probe_completion") call.result = capResult(result);
      return result;
    };
    const screenshot: BrowserPort["screenshot"] = async (...args) => {
      const shot = await inner.screenshot(...args);
      if (this.pending) {
        if (this.imagesKept < TRACE_MAX_IMAGES) {
          this.imagesKept++;
          this.pending.images.push({ mimeType: shot.mimeType, dataBase64: shot.dataBase64 });
        } else this.imagesDropped++;
      }
      return shot;
    };
    return decoratePort(inner, { pageAction, screenshot });
  }

  /** The page before `name` acts, with the box of what it acts on (class comment). */
  private async takeShot(
    inner: BrowserPort,
    tabId: string,
    name: string,
    params: Record<string, unknown>,
    signal: AbortSignal | undefined,
  ): Promise<TraceShot | undefined> {
    const maxBytes = this.shotMaxBytes!;
    const place = await this.actionPlace(inner, tabId, name, params, signal);
    for (const quality of TRACE_SHOT_QUALITIES) {
      const image = await inner.screenshot(tabId, { jpegQuality: quality, ...(signal ? { signal } : {}) });
      const bytes = base64Bytes(image.dataBase64);
      if (bytes <= maxBytes)
        return { mimeType: image.mimeType, dataBase64: image.dataBase64, bytes, ...place };
      // A port that answered another format ignores the quality: trying again is no smaller.
      if (image.mimeType !== "image/jpeg") break;
    }
    this.shotsTooBig++;
    return undefined;
  }

  /** Where the action lands: the element's rect (or a small box round a point) and the viewport. */
  private async actionPlace(
    inner: BrowserPort,
    tabId: string,
    name: string,
    params: Record<string, unknown>,
    signal: AbortSignal | undefined,
  ): Promise<Pick<TraceShot, "box" | "viewport">> {
    const spec = toolSpec(name);
    const ref = spec?.refScopesRead ? undefined : params.ref_id;
    const x = spec?.clicksPoint ? finiteNumber(params.x) : undefined;
    const y = spec?.clicksPoint ? finiteNumber(params.y) : undefined;
    const probe =
      ref !== undefined && ref !== null
        ? { ref_id: ref as JsonValue, properties: [] }
        : { selector: ":root", properties: [] };
    const inspected = await inner
      .pageAction(tabId, "inspect_element_styles", probe, ...(signal ? [{ signal }] : []))
      .catch((): PageResult => ({ success: false }));
    const viewport = boxOf({ x: 0, y: 0, ...(inspected.viewport as object | undefined) });
    const box =
      ref !== undefined && ref !== null
        ? inspected.success
          ? boxOf(inspected.rect)
          : undefined
        : x !== undefined && y !== undefined
          ? { x: x - POINT_BOX_PX / 2, y: y - POINT_BOX_PX / 2, width: POINT_BOX_PX, height: POINT_BOX_PX }
          : undefined;
    return {
      ...(viewport ? { viewport: { width: viewport.width, height: viewport.height } } : {}),
      ...(box ? { box } : {}),
    };
  }

  /**
   * Learns what each ref of a tree read is (the nodes this decorator asked for), and answers the
   * result as the caller asked for it: without nodes unless the caller wanted them, so the model,
   * exec's output and the trace's own record see the read unchanged.
   */
  private learnTree(
    tabId: string,
    url: string,
    result: PageResult,
    asked: Record<string, unknown>,
  ): PageResult {
    const nodes = treeNodesOf(result);
    if (!nodes) return result;
    const key = `${tabId} ${url}`;
    const known = this.refs.get(key) ?? new Map<string, TargetDescriptor>();
    for (const node of placeTreeNodes(nodes))
      if (node.ref !== undefined) known.set(String(node.ref), describeNode(node));
    this.refs.set(key, known);
    return asked[TREE_NODES_PARAM] === true ? result : withoutNodes(result);
  }
}

/** A tree read's params asking for nodes too (tree-nodes.ts). */
function withNodes(params: Record<string, unknown>): Record<string, unknown> {
  return params[TREE_NODES_PARAM] === true ? params : { ...params, [TREE_NODES_PARAM]: true };
}

/** The tree read as a plain read answers it: without the nodes asked for here. */
function withoutNodes(result: PageResult): PageResult {
  if (result.meta?.nodes === undefined) return result;
  const { [TREE_NODES_PARAM]: _nodes, ...rest } = result.meta;
  return { ...result, meta: rest };
}
