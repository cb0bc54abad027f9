/**
 * Test-only add-on page for the tool conformance test: the agent's own ToolExecutor (mode and
 * tier gate, argument validation, guards, capabilities, dispatch) over the add-on's real
 * WebExtBrowserPort, built into the installed add-on so calls reach pages through the add-on's
 * manifest, permissions and content scripts. No model: the test sends the calls.
 *
 * Every answer is JSON text, so BiDi's value serialisation never reshapes a result.
 */

import {
  BlockedDone,
  DuplicateSubmitGuard,
  decoratePort,
  LoopDetector,
  MemoryStore,
  newConversation,
  PermissionGate,
  type RunContext,
  ToolExecutor,
  toolNamesFor,
  toolsNotOffered,
} from "@webbrain/agent";
import type { Mode, Tier } from "@webbrain/protocol";
import { personAtHand } from "../../src/background/person-at-hand.js";
import { WebExtBrowserPort } from "../../src/background/webext-browser-port.js";

// Each sidebar run's port, as the run manager decorates it: here the person at hand presses
// Continue at once (the take-over card itself is covered by run-manager.test.ts).
const bare = new WebExtBrowserPort();
const port = decoratePort(
  bare,
  personAtHand(bare, async () => ({ resumed: true, said: "Solved it." })),
);
let session: { executor: ToolExecutor; run: RunContext; calls: number } | undefined;

/** Starts a fresh executor for one mode and tier in one tab; answers the offered tool names. */
function start(mode: Mode, tier: Tier, tabId: string): string {
  const executor = new ToolExecutor({
    port,
    // No approver: the test wrote the calls, as `webbrain exec` does.
    gate: new PermissionGate(new MemoryStore(), undefined),
    submitGuard: new DuplicateSubmitGuard(),
    blockedDone: new BlockedDone(),
  });
  const run: RunContext = {
    conversation: newConversation(tabId, mode, Date.now()),
    tier,
    vision: true,
    planRequired: false,
    loop: new LoopDetector(),
    malformedStreak: 0,
    unverifiedFrames: new Set<string>(),
  };
  session = { executor, run, calls: 0 };
  return JSON.stringify(toolNamesFor({ mode, tier, vision: true, capabilities: port.capabilities }));
}

async function call(name: string, args: Record<string, unknown>): Promise<string> {
  if (!session) throw new Error("call start(mode, tier, tabId) first");
  const id = `call-${++session.calls}`;
  const outcome = await session.executor.execute(
    { type: "toolCall", id, name, arguments: args },
    session.run,
  );
  const text = outcome.content.map((block) => (block.type === "text" ? block.text : "[image]")).join("\n");
  return JSON.stringify({
    ok: !outcome.isError,
    text,
    details: outcome.details ?? null,
    workingTabId: session.run.conversation.workingTabId,
  });
}

Object.assign(globalThis, {
  webbrainTools: {
    start,
    call,
    notOffered: () => JSON.stringify(toolsNotOffered(port.capabilities)),
    download: async (url: string) => JSON.stringify(await port.download(url)),
    latestDownload: async () => JSON.stringify((await port.listDownloads({ limit: 1 }))[0] ?? null),
  },
});
document.title = "tool probe ready";
