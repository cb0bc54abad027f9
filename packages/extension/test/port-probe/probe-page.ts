/**
 * Test-only add-on page: the add-on's real BrowserPort, built into the installed add-on beside
 * the background page, so tests call it over BiDi (`script.evaluate` in this page) and it reaches
 * pages through the add-on's real manifest, permissions and content scripts.
 *
 * Every call answers JSON text, so BiDi's value serialisation never reshapes a result.
 */

import {
  BlockedDone,
  DuplicateSubmitGuard,
  importSkill,
  LoopDetector,
  MemoryStore,
  newConversation,
  type PermissionAnswer,
  PermissionGate,
  type PermissionRequest,
  parseSkills,
  platformSkillHttp,
  type RunContext,
  runSkillTool,
  ToolExecutor,
  toolsFor,
} from "@webbrain/agent";
import type { Mode, Tier } from "@webbrain/protocol";
import { WebExtBrowserPort } from "../../src/background/webext-browser-port.js";

// The download limit is read per download, as the background page reads it from settings.
let maxDownloadMb = 100;
const port = new WebExtBrowserPort({ maxDownloadBytes: async () => maxDownloadMb * 1024 * 1024 });

/** A skill's HTTP tool run as the add-on runs it (the platform's fetch, no cookies). */
async function runSkill(markdown: string, toolName: string, args: Record<string, unknown>): Promise<string> {
  const skill = importSkill(markdown, { existingIds: [], otherToolNames: [] });
  const tool = parseSkills([skill])
    .flatMap((parsed) => parsed.tools)
    .find((candidate) => candidate.name === toolName);
  if (!tool) throw new Error(`the skill has no tool ${toolName}`);
  const outcome = await runSkillTool(tool, args, { http: platformSkillHttp, mode: "ask" });
  return JSON.stringify(outcome.content.map((part) => (part.type === "text" ? part.text : "")).join(""));
}

async function call(method: string, args: unknown[]): Promise<string> {
  const fn = (port as unknown as Record<string, unknown>)[method];
  if (typeof fn !== "function") throw new Error(`WebExtBrowserPort has no method ${method}`);
  const value: unknown = await (fn as (...a: unknown[]) => Promise<unknown>).apply(port, args);
  return JSON.stringify(value ?? null);
}

/**
 * Calls the port with `{signal}` as its last argument and fires Stop after `stopAfterMs`; answers
 * how the call ended and how long after Stop it took.
 */
async function callStopped(method: string, args: unknown[], stopAfterMs: number): Promise<string> {
  const stop = new AbortController();
  let stoppedAt = 0;
  setTimeout(() => {
    stoppedAt = performance.now();
    stop.abort();
  }, stopAfterMs);
  try {
    const value = await call(method, [...args, { signal: stop.signal }]);
    return JSON.stringify({ ended: "resolved", value: JSON.parse(value) as unknown });
  } catch (error) {
    const afterStopMs = stoppedAt ? performance.now() - stoppedAt : -1;
    return JSON.stringify({ ended: "rejected", name: (error as Error).name, afterStopMs });
  }
}

/**
 * Tool calls as the agent runs them (the agent's ToolExecutor: mode and tier gate, capability
 * check, argument validation, guards, then dispatch over this port), without a model. No
 * approver: as `webbrain exec`, the caller wrote the calls.
 */
const approverAnswers = new Map<string, PermissionAnswer>();
const asked: PermissionRequest[] = [];
const executor = new ToolExecutor({
  port,
  // As the sidebar's prompt answers: "once" unless a test sets another answer.
  gate: new PermissionGate(new MemoryStore(), async (request) => {
    asked.push(request);
    return approverAnswers.get(request.capability) ?? "once";
  }),
  submitGuard: new DuplicateSubmitGuard(),
  blockedDone: new BlockedDone(),
});
const runs = new Map<string, RunContext>();
let calls = 0;

function runFor(tabId: string, mode: Mode, tier: Tier): RunContext {
  const key = `${tabId}|${mode}|${tier}`;
  let run = runs.get(key);
  if (!run) {
    run = {
      conversation: newConversation(tabId, mode, Date.now()),
      tier,
      vision: true,
      planRequired: false,
      loop: new LoopDetector(),
      malformedStreak: 0,
      unverifiedFrames: new Set<string>(),
    };
    runs.set(key, run);
  }
  return run;
}

/** The tools a mode and tier offer on this port. */
function offered(mode: Mode, tier: Tier): string {
  return JSON.stringify(
    toolsFor({ mode, tier, vision: true, capabilities: port.capabilities }).map((t) => t.name),
  );
}

async function execute(tool: string, args: Record<string, unknown>, tabId: string, mode: Mode, tier: Tier) {
  const outcome = await executor.execute(
    { type: "toolCall", id: `probe-${++calls}`, name: tool, arguments: args },
    runFor(tabId, mode, tier),
  );
  const text = outcome.content
    .map((part) => (part.type === "text" ? part.text : `[${part.type}]`))
    .join("\n");
  return JSON.stringify({ isError: outcome.isError, text, details: outcome.details ?? null });
}

Object.assign(globalThis, {
  webbrainProbe: {
    call,
    callStopped,
    execute,
    offered,
    runSkill,
    setMaxDownloadMb: (mb: number) => {
      maxDownloadMb = mb;
      return "null";
    },
    capabilities: () => JSON.stringify([...port.capabilities]),
    /** The permission prompt's answer for a capability ("once" by default), and the requests it was asked (taken). */
    setApproverAnswer: (capability: string, answer: PermissionAnswer) => {
      approverAnswers.set(capability, answer);
      return "null";
    },
    takeAsked: () => JSON.stringify(asked.splice(0)),
    /** Writes the system clipboard as another application would (clipboardWrite). */
    writeClipboard: async (text: string) => {
      await navigator.clipboard.writeText(text);
      return "null";
    },
  },
});
document.title = "port probe ready";
