/**
 * Tool calls without a model, for `webbrain exec`, the MCP servers and the add-on's attached MCP
 * clients (`webbrain mcp --own-firefox`): the agent's own
 * ToolExecutor (mode x tier gate, argument validation, /allow-api, loop detector, duplicate
 * submit guard, permission gate, blockedDone) over the runner's BrowserPort.
 *
 * Invariants:
 * - Exactly the executor `webbrain run` uses; only the approvals differ: there is no plan
 *   (the caller wrote the calls) and no permission prompt unless an approver is given.
 * - `call` never throws for a bad call: a refused, malformed or failed call is a result with
 *   `success: false` and `error`. It throws only when the browser is gone.
 */

import type { AttachToolListing, Mode, Tier } from "@webbrain/protocol";
import { AdvisoryLoopDetector, AdvisorySubmitGuard } from "../guards/advisory-guards.js";
import { BlockedDone } from "../guards/blocked-done.js";
import { LoopDetector } from "../guards/loop-detector.js";
import { type PermissionApprover, PermissionGate } from "../guards/permission-gate.js";
import { DuplicateSubmitGuard } from "../guards/submit-guard.js";
import { newConversation } from "../loop/conversation.js";
import { parseSkills, type SkillDefinition, type SkillTool, skillToolsForMode } from "../skills/skills.js";
import type { SkillHttp } from "../skills/skills-http.js";
import { MemoryStore } from "../store.js";
import type { BrowserPort, PageResult } from "./browser-port.js";
import type { ToolContract } from "./tool-catalog.js";
import { type RunContext, ToolExecutor, type ToolOutcome } from "./tool-executor.js";
import { toolsFor } from "./tool-selection.js";

export interface ToolRunnerOptions {
  port: BrowserPort;
  tabId: string;
  mode: Mode;
  tier: Tier;
  /** Offer and allow `screenshot` (the caller can look at images). */
  vision: boolean;
  approver?: PermissionApprover;
  /** The caller is the agent (MCP): loop and duplicate-submit guards warn, never refuse. */
  advisoryGuards?: boolean;
  /** Skills (`--skill FILE`): their declared tools are offered beside the browser tools. */
  skills?: readonly SkillDefinition[];
  /** How skill tools reach the network (`--zim`: Wikipedia's offline fallback). */
  skillHttp?: SkillHttp;
}

/** A skill's tool as a tool list shows it (plain JSON Schema parameters). */
export interface SkillToolListing {
  name: string;
  description: string;
  parameters: SkillTool["parameters"];
}

/**
 * A tool as a tool list (MCP's tools/list) shows it: its parameters as plain JSON Schema. TypeBox
 * schemas are JSON Schema already; the JSON round trip drops TypeBox's symbol keys.
 */
export function toolListing(tool: {
  name: string;
  description: string;
  parameters: object;
}): AttachToolListing {
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: JSON.parse(JSON.stringify(tool.parameters)) as Record<string, unknown>,
  };
}

/** One call's answer as `exec` prints it and MCP returns it. */
export interface ToolAnswer {
  /** The result object: `success`, `error` on failure, and the tool's fields. */
  result: PageResult;
  /** The text the model would read for this call (status line, wrapped page content). */
  text: string;
  images: { mimeType: string; data: string }[];
  /** The executor ended the run here (done, clarify, a guard stop). */
  end?: "done" | "clarify" | "stop";
}

export class ToolRunner {
  readonly #executor: ToolExecutor;
  readonly #run: RunContext;
  readonly #options: ToolRunnerOptions;
  readonly #advisorySubmit: AdvisorySubmitGuard | undefined;
  readonly #skillTools: ReadonlyMap<string, SkillTool>;
  #calls = 0;

  constructor(options: ToolRunnerOptions) {
    this.#options = options;
    // Fail at start for Compact Dev, as `run` does, rather than refusing every call.
    this.tools();
    this.#advisorySubmit = options.advisoryGuards ? new AdvisorySubmitGuard() : undefined;
    this.#skillTools = new Map(
      parseSkills(options.skills ?? []).flatMap((skill) =>
        skill.tools.map((tool) => [tool.name, tool] as const),
      ),
    );
    this.#executor = new ToolExecutor({
      // Skill tools go out through the agent's cookieless fetch (no cookie jar on Node either).
      skillTools: this.#skillTools,
      ...(options.skillHttp ? { skillHttp: options.skillHttp } : {}),
      port: options.port,
      gate: new PermissionGate(new MemoryStore(), options.approver),
      submitGuard: this.#advisorySubmit ?? new DuplicateSubmitGuard(),
      blockedDone: new BlockedDone(),
    });
    const run = {
      conversation: newConversation(options.tabId, options.mode, Date.now()),
      tier: options.tier,
      vision: options.vision,
      planRequired: false,
      loop: options.advisoryGuards ? new AdvisoryLoopDetector() : new LoopDetector(),
      malformedStreak: 0,
      unverifiedFrames: new Set<string>(),
    };
    this.#run = run;
  }

  /**
   * The page the session started on (the command line's URL) is the one the user gave: in Ask,
   * fetch_url / research_url reach it, its links, and send cookies only to its site.
   */
  async #recordStartPage(): Promise<void> {
    const tab = await this.#options.port.getTab(this.#options.tabId).catch(() => undefined);
    if (tab?.url) this.#run.conversation.userUrls = [tab.url];
  }

  /** The tools this mode and tier offer. */
  tools(): ToolContract[] {
    const { mode, tier, vision, port } = this.#options;
    return toolsFor({ mode, tier, vision, capabilities: port.capabilities });
  }

  /** The skills' tools this mode offers (download jobs only in action modes). */
  skillTools(): SkillToolListing[] {
    return skillToolsForMode(this.#skillTools.values(), this.#options.mode).map(
      ({ name, description, parameters }) => ({ name, description, parameters }),
    );
  }

  /**
   * Runs one tool call. `signal` is the caller's Stop for this call (an MCP cancel, Ctrl-C): it
   * reaches every browser call the tool makes, so the work ends in Firefox too.
   */
  async call(
    name: string,
    args: Record<string, unknown>,
    options: { signal?: AbortSignal } = {},
  ): Promise<ToolAnswer> {
    const id = `call-${++this.#calls}`;
    const { signal } = options;
    if (this.#calls === 1) await this.#recordStartPage();
    // Calls may overlap (MCP): each sees its own signal, all share the rest of the run's state.
    const run = signal
      ? new Proxy(this.#run, { get: (target, key) => (key === "signal" ? signal : Reflect.get(target, key)) })
      : this.#run;
    const outcome = await this.#executor.execute({ type: "toolCall", id, name, arguments: args }, run);
    const answer = toAnswer(outcome);
    const warnings = this.#advisorySubmit?.takeWarnings() ?? [];
    if (warnings.length > 0) {
      answer.text = [answer.text, ...warnings].join("\n");
      answer.result.warnings = warnings;
    }
    return answer;
  }
}

function toAnswer(outcome: ToolOutcome): ToolAnswer {
  const text = outcome.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("\n");
  const images = outcome.content.flatMap((block) =>
    block.type === "image" ? [{ mimeType: block.mimeType, data: block.data }] : [],
  );
  const ok = !outcome.isError;
  // The structured result the executor keeps beside the model's text: nothing is parsed back.
  const result: PageResult = { ...outcome.details, success: ok };
  if (!ok && typeof result.error !== "string") result.error = "The call failed.";
  const end = outcome.end?.kind;
  return { result, text, images, ...(end ? { end } : {}) };
}
