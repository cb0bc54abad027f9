/**
 * ToolExecutor: every tool call the model sends passes through here, in this order:
 *   1. mode x tier x port gate (Ask is read-only, Dev-only tools, Compact Dev, and a tool the
 *      port's capabilities cannot run) - the rule, whatever the tool list said;
 *   2. argument validation against the tool's schema (malformed calls are counted);
 *   3. Plan before Act: no non-observe tool before the plan is approved;
 *   4. /allow-api for mutating fetch_url;
 *   5. loop detector (actions and navigations; observations never count);
 *   6. duplicate-submit guard;
 *   7. permission gate (capability x origin);
 *   8. dispatch: tools the agent runs (done, clarify, scheduling) by AGENT_TOOL_HANDLERS, keyed by
 *      the declared names (a declared agent tool without a handler does not compile), right after
 *      the plan check; every other tool to the BrowserPort. blockedDone decides `done`.
 *   9. for a vision model: verify_form's viewport screenshot (spec 000), and a screenshot after
 *      each action that worked when screenshotAfterActions is on, within the image budget.
 * A refusal at any stage is a failed tool result the model reads, with the reason and what to
 * do instead. Only a loop stop or repeated malformed calls end the run from here.
 */
import { type ToolCall, validateToolCall } from "@mariozechner/pi-ai";
import type { PermissionCapability, Tier } from "@webbrain/protocol";
import { AgentError } from "../errors.js";
import { admitsFailure, type BlockedDone } from "../guards/blocked-done.js";
import type { LoopDetector, LoopVerdict } from "../guards/loop-detector.js";
import { originOf, type PermissionGate } from "../guards/permission-gate.js";
import type { DuplicateSubmitGuard } from "../guards/submit-guard.js";
import { gateUrls } from "../guards/url-gate.js";
import { agentFacilities } from "../loop/agent-facilities.js";
import type { Conversation } from "../loop/conversation.js";
import type { RunImageCounter } from "../loop/image-budget.js";
import { type AgentScheduler, runScheduleTool, type ScheduleToolName } from "../scheduler/schedule-tools.js";
import { runSkillTool } from "../skills/skill-tool-runner.js";
import type { SkillTool } from "../skills/skills.js";
import { platformSkillHttp, type SkillHttp } from "../skills/skills-http.js";
import type { BrowserPort, PageResult, UploadPreview } from "./browser-port.js";
import { type AgentToolName, type ToolContract, toolSpec } from "./tool-catalog.js";
import { dispatchTool, uploadRequestOf } from "./tool-dispatch.js";
import { agentResult, isValidationRejection, refNamesOf, type ToolContent, withNote } from "./tool-result.js";
import { allowedTool } from "./tool-selection.js";

/** Consecutive malformed tool calls before the run stops with a malformed_tool_call error. */
export const MALFORMED_STOP_AT = 3;

const MUTATING_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

export type ToolEnd =
  | { kind: "done"; text: string }
  | { kind: "clarify"; text: string }
  | { kind: "stop"; error: AgentError };

export interface ToolOutcome extends ToolContent {
  end?: ToolEnd;
}

/** Per-run state the executor reads and updates. */
export interface RunContext {
  conversation: Conversation;
  tier: Tier;
  vision: boolean;
  /** Plan before Act is on for this task. */
  planRequired: boolean;
  loop: LoopDetector;
  malformedStreak: number;
  /** urlFilters of frames typed into with iframe_type and not yet checked with verify_form. */
  unverifiedFrames: Set<string>;
  /** The run's Stop: passed to every BrowserPort call, so Stop ends the work in the browser. */
  signal?: AbortSignal;
  /** Screenshots this task has taken, against the image budget's per-run count. */
  images?: RunImageCounter;
  /** A vision model gets a viewport screenshot after each action that worked (a setting). */
  screenshotAfterActions?: boolean;
  onNudge?: (nudge: { detector: string; message: string; subject: string; count: number }) => void;
}

export interface ExecutorDeps {
  port: BrowserPort;
  gate: PermissionGate;
  submitGuard: DuplicateSubmitGuard;
  blockedDone: BlockedDone;
  /** Tools declared by enabled skills, by name. */
  skillTools?: ReadonlyMap<string, SkillTool>;
  /** The cookieless network skill tools use (default: fetch with credentials omitted). */
  skillHttp?: SkillHttp;
  /** Where schedule_task / schedule_resume go; absent: they are not offered. */
  scheduler?: AgentScheduler;
}

type AgentToolHandler = (args: Record<string, unknown>, run: RunContext) => Promise<ToolOutcome>;

function str(value: unknown): string {
  return typeof value === "string" ? value : value === undefined || value === null ? "" : String(value);
}

export class ToolExecutor {
  /** ref -> accessible name per tab, from the newest tree the model read. */
  private readonly refNames = new Map<string, Map<string, string>>();

  constructor(private readonly deps: ExecutorDeps) {}

  forgetTab(tabId: string): void {
    this.refNames.delete(tabId);
    this.deps.submitGuard.navigated(tabId);
    this.deps.blockedDone.clear(tabId);
  }

  async execute(call: ToolCall, run: RunContext): Promise<ToolOutcome> {
    const { conversation } = run;
    const name = call.name;
    const skill = this.deps.skillTools?.get(name);
    if (skill) return this.runSkill(skill, call, run);
    const selection = {
      mode: conversation.mode,
      tier: run.tier,
      vision: run.vision,
      capabilities: this.deps.port.capabilities,
      facilities: agentFacilities(this.deps),
    };
    const permit = allowedTool(selection, name);
    const spec = toolSpec(name);
    if (!permit.allowed || !spec) {
      const reason = permit.allowed ? `Unknown tool "${name}".` : permit.reason;
      return spec ? agentResult(name, false, reason) : this.malformed(run, name, reason);
    }
    let args: Record<string, unknown>;
    try {
      args = validateToolCall([spec], call) as Record<string, unknown>;
    } catch (error) {
      return this.malformed(
        run,
        name,
        `Invalid arguments for ${name}: ${(error as Error).message.split("\n").slice(0, 4).join(" ")}. Send a JSON object matching the tool's schema.`,
      );
    }
    run.malformedStreak = 0;

    if (
      run.planRequired &&
      !conversation.planApproved &&
      spec.kind !== "observe" &&
      spec.kind !== "control"
    ) {
      return agentResult(name, false, "Refused: the plan has not been approved, so no action may run yet.");
    }
    if (spec.runs.in === "agent") return this.agentTools[spec.name as AgentToolName](args, run);
    const tabId = conversation.workingTabId;

    // A call that names its HTTP method (the `methodArg` facet) changes another site's data with
    // a mutating one: only after /allow-api, never in Ask.
    if (spec.methodArg !== undefined) {
      const method = str(args[spec.methodArg] || "GET").toUpperCase();
      if (MUTATING_METHODS.has(method) && (conversation.mode === "ask" || !conversation.allowApi)) {
        const why =
          conversation.mode === "ask"
            ? "Ask mode is read-only"
            : "the user has not typed /allow-api in this conversation";
        return agentResult(
          name,
          false,
          `Refused ${method}: ${why}. Use the page's UI instead, or ask the user to allow API mutations.`,
        );
      }
    }

    const portCall = run.signal ? { signal: run.signal } : {};
    const tab = await this.deps.port.getTab(tabId, portCall).catch(() => undefined);
    const pageUrl = tab?.url ?? "";
    const notes: string[] = [];
    // Local files and Ask's fetch rule (url-gate.ts): before any guard counts the call.
    const urls = await gateUrls(this.deps.port, spec, args, { conversation, tabId, pageUrl, ...portCall });
    if (!urls.allowed) return agentResult(name, false, urls.message, { refused: urls.code });

    const verdict = this.loopVerdict(spec, args, run);
    if (verdict.kind === "stop") {
      return {
        ...agentResult(name, false, verdict.message),
        end: {
          kind: "stop",
          error: new AgentError("loop_stopped", verdict.message, {
            loop: { detector: verdict.detector, subject: verdict.subject, count: verdict.count },
          }),
        },
      };
    }
    if (verdict.kind === "nudge") {
      run.onNudge?.(verdict);
      notes.push(verdict.message);
    }

    const submitLabel = this.submitLabel(tabId, name, args);
    let submitKey: string | undefined;
    if (submitLabel) {
      const check = this.deps.submitGuard.check(tabId, submitLabel, pageUrl, args._allowResubmit === true);
      if (!check.allowed) return agentResult(name, false, check.message);
      submitKey = check.key;
    }

    let permission = permissionFor(spec, args, pageUrl);
    if (spec.preflight === "upload" && this.deps.port.checkUpload) {
      // Before the prompt: a file the user did not give is refused without asking anyone, and
      // the prompt names the file that would go to the page's site.
      const preview = await this.deps.port.checkUpload(tabId, uploadRequestOf(args), portCall);
      if (!preview.ok) return agentResult(name, false, preview.error, { code: preview.code });
      if (permission) permission = { ...permission, detail: uploadDetail(preview, permission.origin) };
    }
    if (permission) {
      const decision = await this.deps.gate.check({ ...permission, tool: name });
      if (!decision.allowed) {
        // Nothing was clicked: once the user allows it, the click is not a duplicate.
        if (submitKey) this.deps.submitGuard.rejected(submitKey);
        return agentResult(name, false, decision.message);
      }
    }

    const clipboard = await this.clipboardRead(spec, args, pageUrl);
    if (!clipboard.allowed) return agentResult(name, false, clipboard.message);

    // A tool offered only to vision models answers an image: the run's image budget counts it.
    if (spec.vision && run.images?.spent) return agentResult(name, false, run.images.spentMessage());
    const outcome = await dispatchTool(this.deps.port, name, clipboard.args, {
      tabId,
      url: pageUrl,
      ...portCall,
      ...(urls.credentials ? { credentials: urls.credentials } : {}),
    });
    if (spec.vision && !outcome.isError) run.images?.take();
    if (outcome.newTabId) conversation.workingTabId = outcome.newTabId;
    if (spec.formCheck === "unverified" && !outcome.isError) run.unverifiedFrames.add(str(args.urlFilter));
    if (spec.formCheck === "verifies" && !outcome.isError) run.unverifiedFrames.delete(str(args.urlFilter));
    const resultText = outcome.content.map((block) => (block.type === "text" ? block.text : "")).join("");

    // The tree's own result carries the names its refs stand for (submitLabel's ref_name).
    if (spec.answersTree && !outcome.isError) {
      const names = refNamesOf(outcome.details);
      const known = this.refNames.get(tabId) ?? new Map<string, string>();
      for (const [ref, refName] of names) known.set(ref, refName);
      this.refNames.set(tabId, known);
    }
    const effect = outcome.pageResult?.effect;
    if (effect && typeof effect === "object" && !Array.isArray(effect) && effect.changed === true) {
      run.loop.actionChanged(JSON.stringify(effect.changes ?? ""));
    }
    if (submitKey && outcome.pageResult && isValidationRejection(outcome.pageResult)) {
      this.deps.submitGuard.rejected(submitKey);
    }
    await this.afterAction(spec, tabId, pageUrl, outcome.navigatedTo, resultText, run);
    const viewed = await this.withViewport(spec, outcome, run);
    return notes.reduce<ToolOutcome>((acc, note) => withNote(acc, note), viewed);
  }

  /**
   * A vision model sees the viewport after verify_form (spec 000: field values + a screenshot)
   * and, with screenshotAfterActions, after every action or navigation that worked. Skipped
   * once the run's image budget is spent, or if the capture fails (the result stands alone).
   */
  private async withViewport(
    spec: ToolContract,
    outcome: ToolOutcome,
    run: RunContext,
  ): Promise<ToolOutcome> {
    const port = this.deps.port;
    if (!run.vision || outcome.isError || !port.capabilities.has("screenshot") || run.images?.spent)
      return outcome;
    const acted = spec.kind === "act" || spec.kind === "navigate";
    if (spec.formCheck !== "verifies" && !(run.screenshotAfterActions && acted)) return outcome;
    const shot = await port
      .screenshot(run.conversation.workingTabId, run.signal ? { signal: run.signal } : {})
      .catch(() => undefined);
    if (!shot) return outcome;
    run.images?.take();
    return {
      ...outcome,
      content: [
        ...outcome.content,
        { type: "text", text: `[viewport after ${spec.name}]` },
        { type: "image", data: shot.dataBase64, mimeType: shot.mimeType },
      ],
    };
  }

  /** A skill's tool: its declared endpoint only, cookieless; no prompt (the skill is trusted). */
  private async runSkill(skill: SkillTool, call: ToolCall, run: RunContext): Promise<ToolOutcome> {
    run.malformedStreak = 0;
    const portCall = run.signal ? { signal: run.signal } : {};
    const tab = await this.deps.port.getTab(run.conversation.workingTabId, portCall).catch(() => undefined);
    return runSkillTool(skill, call.arguments, {
      http: this.deps.skillHttp ?? platformSkillHttp,
      mode: run.conversation.mode,
      ...(tab?.url ? { activeTabUrl: tab.url } : {}),
      ...(run.signal ? { signal: run.signal } : {}),
      port: this.deps.port,
      checkPermission: (request) => this.deps.gate.check(request),
    });
  }

  /**
   * A paste key on a port that reads the system clipboard for it (the add-on: synthetic keys
   * paste nothing themselves) reads it only after the gate's `clipboard_read` for the page's
   * origin; `read_clipboard` in the port call says it was allowed, and is never the model's.
   */
  private async clipboardRead(
    spec: ToolContract,
    args: Record<string, unknown>,
    pageUrl: string,
  ): Promise<{ allowed: true; args: Record<string, unknown> } | { allowed: false; message: string }> {
    // Only a call that presses keys (its `keysArg`) can paste (Control+v).
    if (spec.keysArg === undefined) return { allowed: true, args };
    const { read_clipboard: _fromModel, ...rest } = args;
    const keys = rest[spec.keysArg];
    if (!this.deps.port.capabilities.has("clipboard_read") || !pastes(keys))
      return { allowed: true, args: rest };
    const decision = await this.deps.gate.check({
      capability: "clipboard_read",
      origin: originOf(pageUrl),
      tool: spec.name,
      detail: `paste the system clipboard into ${originOf(pageUrl)} (${str(keys)})`,
    });
    return decision.allowed ? { allowed: true, args: { ...rest, read_clipboard: true } } : decision;
  }

  /** How each tool the agent runs is answered, by its declared name (tool-catalog.ts `runs`). */
  private readonly agentTools: Record<AgentToolName, AgentToolHandler> = {
    done: (args, run) => this.done(run.conversation.workingTabId, str(args.summary), run),
    clarify: async (args) => ({
      ...agentResult("clarify", true, "Asked the user."),
      end: { kind: "clarify", text: str(args.question) },
    }),
    schedule_task: (args, run) => this.runSchedule("schedule_task", args, run),
    schedule_resume: (args, run) => this.runSchedule("schedule_resume", args, run),
  };

  /** schedule_task / schedule_resume: a job for this conversation's tab; a resume ends the run. */
  private async runSchedule(
    name: ScheduleToolName,
    args: Record<string, unknown>,
    run: RunContext,
  ): Promise<ToolOutcome> {
    // The gate allowed the call, so the embedder gave a scheduler (agentFacilities).
    const scheduler = this.deps.scheduler as AgentScheduler;
    const answer = await runScheduleTool(scheduler, name, args, {
      ownerTabId: run.conversation.tabId,
      mode: run.conversation.mode,
    });
    const outcome = agentResult(name, answer.ok, answer.text);
    return answer.ok && answer.ends ? { ...outcome, end: { kind: "done", text: answer.text } } : outcome;
  }

  private malformed(run: RunContext, name: string, message: string): ToolOutcome {
    run.malformedStreak++;
    const outcome = agentResult(name, false, message);
    if (run.malformedStreak < MALFORMED_STOP_AT) return outcome;
    const error = new AgentError(
      "malformed_tool_call",
      `The model sent ${run.malformedStreak} malformed tool calls in a row (last: ${message}). It may be too small for tool calling: pick a larger model, or set this provider's tier to Compact.`,
    );
    return { ...outcome, end: { kind: "stop", error } };
  }

  private loopVerdict(spec: ToolContract, args: Record<string, unknown>, run: RunContext): LoopVerdict {
    if (spec.kind === "navigate" && typeof args.url === "string") return run.loop.recordNavigation(args.url);
    if (spec.kind === "observe" || spec.kind === "control") return { kind: "ok" };
    return run.loop.recordAction(spec.name, args);
  }

  /** Observations feed the loop detector's page fingerprint; navigation resets page state. */
  private async afterAction(
    spec: ToolContract,
    tabId: string,
    before: string,
    navigatedTo: string | undefined,
    resultText: string,
    run: RunContext,
  ): Promise<void> {
    let after = navigatedTo;
    if (after === undefined && (spec.kind === "act" || spec.kind === "dev")) {
      after = (
        await this.deps.port.getTab(tabId, run.signal ? { signal: run.signal } : {}).catch(() => undefined)
      )?.url;
    }
    if (after !== undefined && after !== before) {
      this.deps.submitGuard.navigated(tabId);
      this.refNames.delete(tabId);
      run.loop.setUrl(after);
    }
    if (spec.kind === "observe") run.loop.observe(after ?? before, resultText);
  }

  private submitLabel(tabId: string, name: string, args: Record<string, unknown>): string | undefined {
    const label = toolSpec(name)?.sends?.label;
    if (label === "text" && typeof args.text === "string") return args.text;
    if (label === "ref_name") return this.refNames.get(tabId)?.get(str(args.ref_id));
    return undefined;
  }

  private async done(tabId: string, summary: string, run: RunContext): Promise<ToolOutcome> {
    const [frame] = run.unverifiedFrames;
    if (frame !== undefined && !admitsFailure(summary)) {
      return agentResult(
        "done",
        false,
        `done refused: you typed into a frame with iframe_type (urlFilter ${JSON.stringify(frame)}) and have not checked it. Call verify_form with the same urlFilter, then done.`,
      );
    }
    let probe: PageResult | undefined;
    if (run.conversation.mode !== "ask") {
      probe = await this.deps.port
        .pageAction(tabId, "probe_completion", { summary }, run.signal ? { signal: run.signal } : {})
        .catch(() => undefined);
    }
    const decision = this.deps.blockedDone.decide(tabId, summary, probe);
    if (decision.kind === "block") return agentResult("done", false, decision.message, { blockedDone: true });
    const text = decision.kind === "allow_with_note" ? `${summary}\n\n${decision.note}` : summary;
    return { ...agentResult("done", true, "Task finished."), end: { kind: "done", text } };
  }
}

/** Whether press_keys' keys include a paste chord (Control+v). */
export function pastes(keys: unknown): boolean {
  const list = Array.isArray(keys) ? keys.map(String) : [String(keys ?? "")];
  return list.some((item) => /(^|[\s,])(control|ctrl)\+v($|[\s,])/i.test(item));
}

/** The permission prompt's line for an upload: which file goes to which site. */
function uploadDetail(preview: Extract<UploadPreview, { ok: true }>, origin: string): string {
  const size =
    preview.bytes === undefined
      ? ""
      : preview.bytes < 1024
        ? ` (${preview.bytes} bytes)`
        : ` (${Math.ceil(preview.bytes / 1024)} KB)`;
  return `upload_file: send ${JSON.stringify(preview.file)}${size} to ${origin}`;
}

/** Which capability a call uses, and on which origin (undefined: no permission needed). */
export function permissionFor(
  spec: ToolContract,
  args: Record<string, unknown>,
  pageUrl: string,
): { capability: PermissionCapability; origin: string; detail: string } | undefined {
  const detail = `${spec.name} ${JSON.stringify(args).slice(0, 120)}`;
  const asks = spec.permission;
  if (!asks) return undefined;
  if (asks.origin === "page") return { capability: asks.capability, origin: originOf(pageUrl), detail };
  return typeof args.url === "string"
    ? { capability: asks.capability, origin: originOf(args.url), detail }
    : undefined;
}
