/**
 * Scripted MiniWoB++ policies for testkit's scripted LLM server: a "model" that reads only what
 * the agent sends it (the task's instruction in the user message, the accessibility tree in tool
 * results) and acts by ref. Stateless: each answer is derived from the request's own history
 * (the calls made so far), so parallel episodes can share one server.
 *
 * One policy per kind of instruction (policies/index.ts: click a named button or link, type into
 * the field, pick from a list, tick boxes, answer an email, act on a feed post ...). Instructions
 * it does not know end the episode's run with a text answer ("unsupported"), counted as a
 * failure by the harness.
 */
import { type RecordedRequest, type Reply, toolResultTexts, userTexts } from "@webbrain/testkit";
import { type Call, policyFor, Tree, type TreeItem } from "./policies/index.js";

/** Tree lines with refs, from a tool result (plain text or JSON-escaped). */
export function treeItems(result: string): TreeItem[] {
  return new Tree(result).items;
}

/** The tool calls the "model" made so far (OpenAI chat dialect), oldest first. */
export function callsSoFar(request: RecordedRequest): Call[] {
  const calls: Call[] = [];
  const messages = Array.isArray(request.body.messages) ? request.body.messages : [];
  for (const message of messages as Array<Record<string, unknown>>) {
    if (message.role !== "assistant" || !Array.isArray(message.tool_calls)) continue;
    for (const call of message.tool_calls as Array<{ function?: { name?: string; arguments?: string } }>) {
      let args: Record<string, unknown> = {};
      try {
        args = JSON.parse(call.function?.arguments ?? "{}") as Record<string, unknown>;
      } catch {
        // a malformed call counts with no arguments
      }
      calls.push({ name: call.function?.name ?? "", args });
    }
  }
  return calls;
}

export { policyFor };

/** Finds the instruction in the agent's first user message (it may add the URL and title). */
export function utteranceOf(request: RecordedRequest): string {
  const text = userTexts(request)[0] ?? "";
  const lines = text
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
  return lines.find((l) => policyFor(l.replace(/^(task|user request|request):\s*/i, ""))) ?? lines[0] ?? "";
}

/** One scripted model turn: read the tree first, then the policy's next action, then done. */
export function miniwobStep(request: RecordedRequest): Reply {
  const history = callsSoFar(request);
  const last = history.at(-1);
  if (last?.name !== "get_accessibility_tree") {
    return { toolCalls: [{ name: "get_accessibility_tree", arguments: {} }] };
  }
  const utterance = utteranceOf(request).replace(/^(task|user request|request):\s*/i, "");
  const policy = policyFor(utterance);
  if (!policy) return { text: `unsupported instruction: ${utterance}` };
  const results = toolResultTexts(request);
  const tree = new Tree(results.at(-1) ?? "");
  const next = policy(
    tree,
    history,
    results.slice(0, -1).map((text) => new Tree(text)),
  );
  if ("done" in next) return { toolCalls: [{ name: "done", arguments: { summary: next.done } }] };
  return { toolCalls: [{ name: next.name, arguments: next.args }] };
}
