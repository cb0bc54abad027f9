/**
 * What each model call is given, built from a conversation: the system prompt, the tool list
 * (built-in tools for the mode and tier, plus skill tools), the enriched first message of a
 * conversation, the summarizer's request, and the short assistant notes that close an aborted
 * or failed turn. Pure functions over their inputs, except the first message, which reads the
 * tab through the BrowserPort.
 */
import type { AssistantMessage, ImageContent, TextContent, Tool, UserMessage } from "@mariozechner/pi-ai";
import type { AgentFacilities, BrowserCapabilities, Mode } from "@webbrain/protocol";
import { adapterFor, type SiteAdapter } from "../adapters/site-adapters.js";
import { wrapUntrusted } from "../guards/untrusted.js";
import type { LlmCallOptions, LlmClient } from "../providers/provider-client.js";
import type { ProviderConfig } from "../providers/provider-config.js";
import { type ParsedSkill, type SkillTool, skillsPrompt, skillToolsForMode } from "../skills/skills.js";
import type { BrowserPort } from "../tools/browser-port.js";
import { toolsFor } from "../tools/tool-selection.js";
import type { Summarizer } from "./context-manager.js";
import type { Plan } from "./planner.js";
import { planAsText } from "./planner.js";
import { systemPrompt } from "./prompts.js";

export const SUMMARIZER_PROMPT =
  "Summarize this browser agent's history for its own later use: facts found, actions taken and their outcomes, the current page state, what remains. Plain text, under 1500 characters.";

/** The text of an assistant message (its text blocks, joined). */
export function textOf(message: AssistantMessage): string {
  return message.content
    .filter((block): block is TextContent => block.type === "text")
    .map((block) => block.text)
    .join("")
    .trim();
}

export function modelPrompt(
  mode: Mode,
  provider: ProviderConfig,
  extraPrompt: string | undefined,
  skills: readonly ParsedSkill[],
): string {
  const extra = [extraPrompt, skillsPrompt(skills)].filter(Boolean).join("\n\n");
  return systemPrompt({ mode, tier: provider.tier, ...(extra ? { extra } : {}) });
}

export function modelTools(
  mode: Mode,
  provider: ProviderConfig,
  skillTools: Iterable<SkillTool>,
  capabilities: BrowserCapabilities,
  facilities?: AgentFacilities,
): Tool[] {
  const selection = { mode, tier: provider.tier, vision: provider.vision, capabilities };
  const builtin = toolsFor(facilities ? { ...selection, facilities } : selection).map(
    ({ name, description, parameters }) => ({ name, description, parameters }),
  );
  // Skill tools are plain JSON Schema; pi-ai sends parameters as JSON either way.
  const skills = skillToolsForMode(skillTools, mode).map(({ name, description, parameters }) => ({
    name,
    description,
    parameters: parameters as unknown as Tool["parameters"],
  }));
  return [...builtin, ...skills];
}

export interface FirstMessage {
  message: UserMessage;
  /** The site adapter injected, if any. */
  adapterId?: string;
}

/** The task, plus the tab's URL and title (untrusted), its site adapter and, for vision, a screenshot. */
export async function enrichedTaskMessage(
  port: BrowserPort,
  tabId: string,
  task: string,
  vision: boolean,
  adapters: readonly SiteAdapter[],
  now: number,
): Promise<FirstMessage> {
  const content: (TextContent | ImageContent)[] = [{ type: "text", text: task }];
  const tab = await port.getTab(tabId).catch(() => undefined);
  let adapterId: string | undefined;
  if (tab) {
    content.push({
      type: "text",
      text: `\n\nCurrent tab:\n${wrapUntrusted("tab", `URL: ${tab.url}\nTitle: ${tab.title}`)}`,
    });
    const adapter = adapterFor(tab.url, adapters);
    if (adapter) {
      content.push({ type: "text", text: `\n\nSite guidance: ${adapter.guidance}` });
      adapterId = adapter.id;
    }
    if (vision) {
      const shot = await port.screenshot(tabId).catch(() => undefined);
      if (shot) content.push({ type: "image", data: shot.dataBase64, mimeType: shot.mimeType });
    }
  }
  const message: UserMessage = { role: "user", content, timestamp: now };
  return adapterId ? { message, adapterId } : { message };
}

/** Append the approved plan to the task message, so every later call sees it. */
export function attachPlan(message: UserMessage, plan: Plan): void {
  const planText: TextContent = { type: "text", text: `\n\n${planAsText(plan, "Approved plan")}` };
  message.content =
    typeof message.content === "string"
      ? [{ type: "text", text: message.content }, planText]
      : [...message.content, planText];
}

/** The usage of a message no model produced: no tokens, no cost. */
export function noUsage(): AssistantMessage["usage"] {
  return {
    input: 0,
    output: 0,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 0,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  };
}

/** A model-free assistant message: closes a turn that was aborted, failed or rejected. */
export function assistantNote(provider: ProviderConfig, text: string, now: number): AssistantMessage {
  return {
    role: "assistant",
    content: [{ type: "text", text }],
    api: "openai-completions",
    provider: provider.id,
    model: provider.model,
    usage: noUsage(),
    stopReason: "stop",
    timestamp: now,
  };
}

/** A Summarizer that asks the model (no tools) for a summary of the history text. */
export function modelSummarizer(llm: LlmClient, options: LlmCallOptions, now: () => number): Summarizer {
  return async (history) => {
    const answer = await llm.complete(
      {
        systemPrompt: SUMMARIZER_PROMPT,
        messages: [{ role: "user", content: history, timestamp: now() }],
        tools: [],
      },
      options,
    );
    return textOf(answer);
  };
}
