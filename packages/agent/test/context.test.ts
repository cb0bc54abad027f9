// Context management on long runs: trimming with an LLM summary, emergency trim and retry on a
// context overflow, the image budget, and the tool-result cap.

import type { Message } from "@mariozechner/pi-ai";
import {
  imageCount,
  type RecordedRequest,
  type Reply,
  systemPromptText,
  toolNames,
  userTexts,
} from "@webbrain/testkit";
import { afterEach, describe, expect, it } from "vitest";
import {
  type AgentEvent,
  KEEP_IMAGES,
  MAX_TOOL_RESULT_CHARS,
  needsTrim,
  noUsage,
  SUMMARY_HEADER,
  TRIM_AT_CHARS,
  TRIM_AT_MESSAGES,
  trimAtChars,
  trimHistory,
} from "../src/index.js";
import { type Harness, harness, SHOP_URL } from "./harness.js";
import { line } from "./scripted-tree.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const isSummaryRequest = (request: RecordedRequest) => toolNames(request).length === 0;
const bigTree = (size: number) =>
  Array.from({ length: size }, (_, index) =>
    line(0, "link", `Article number ${index + 1} about lamps`, { ref: index + 1 }),
  );

describe("the context window's character budget", () => {
  it("is TRIM_AT_CHARS at the default window and shrinks with a smaller one", () => {
    expect(trimAtChars()).toBe(TRIM_AT_CHARS);
    expect(trimAtChars(4_000)).toBe(10_000);
    const history: Message[] = [{ role: "user", content: "x".repeat(20_000), timestamp: 0 }];
    expect(needsTrim(history)).toBe(false);
    expect(needsTrim(history, trimAtChars(4_000))).toBe(true);
  });
});

describe("trimming", () => {
  it("summarizes the middle of a long run with the model once past the character budget, keeping the task", async () => {
    let treeReads = 0;
    const step = (request: RecordedRequest): Reply => {
      if (isSummaryRequest(request)) return { text: "SUMMARY: the agent read the article list many times." };
      return treeReads++ < 16
        ? { toolCalls: [{ name: "get_accessibility_tree", arguments: {} }] }
        : { toolCalls: [{ name: "done", arguments: { summary: "Read everything." } }] };
    };
    h = await harness({
      script: Array.from({ length: 30 }, () => step),
      pages: { [SHOP_URL]: { title: "News", tree: bigTree(200) } },
    });
    const events: AgentEvent[] = [];
    const result = await h.agent.processMessage("1", "Read the article list", {
      onEvent: (event) => events.push(event),
    });
    expect(result.status).toBe("done");

    const summaryAt = h.llm.requests.findIndex(isSummaryRequest);
    expect(summaryAt).toBeGreaterThan(0);
    const summaryRequest = h.llm.requests[summaryAt] as RecordedRequest;
    expect(systemPromptText(summaryRequest)).toMatch(/^Summarize this browser agent's history/);
    const before = h.llm.requests[summaryAt - 1] as RecordedRequest;
    const after = h.llm.requests[summaryAt + 1] as RecordedRequest;
    expect(JSON.stringify(before.body).length).toBeGreaterThan(TRIM_AT_CHARS);
    expect((after.body.messages as unknown[]).length).toBeLessThan(
      (before.body.messages as unknown[]).length,
    );
    const task = userTexts(after)[0] ?? "";
    expect(task).toContain("Read the article list");
    expect(task).toContain(SUMMARY_HEADER);
    expect(task).toContain("SUMMARY: the agent read the article list many times.");
    expect(events).toContainEqual(
      expect.objectContaining({ type: "context_trimmed", emergency: false, usedModel: true }),
    );
    // Tool results are capped.
    for (const request of h.llm.requests) {
      for (const message of (request.body.messages ?? []) as { role: string; content: string }[]) {
        if (message.role === "tool")
          expect(JSON.stringify(message.content).length).toBeLessThan(MAX_TOOL_RESULT_CHARS + 600);
      }
    }
  });

  it("trims past the message-count limit, and falls back to a mechanical summary when the model fails", async () => {
    const messages: Message[] = [{ role: "user", content: "task", timestamp: 0 }];
    for (let index = 0; index < 30; index++) {
      messages.push({
        role: "assistant",
        content: [{ type: "toolCall", id: `c${index}`, name: "scroll", arguments: {} }],
        api: "openai-completions",
        provider: "x",
        model: "m",
        usage: noUsage(),
        stopReason: "toolUse",
        timestamp: 0,
      });
      messages.push({
        role: "toolResult",
        toolCallId: `c${index}`,
        toolName: "scroll",
        content: [{ type: "text", text: "ok" }],
        isError: false,
        timestamp: 0,
      });
    }
    expect(messages.length).toBeGreaterThan(TRIM_AT_MESSAGES);
    expect(needsTrim(messages)).toBe(true);
    const trimmed = await trimHistory(messages, async () => {
      throw new Error("model down");
    });
    expect(trimmed.usedModel).toBe(false);
    expect(needsTrim(trimmed.messages)).toBe(false);
    expect(trimmed.messages[0]?.content).toContain("Earlier the agent ran");
    expect(trimmed.messages[1]?.role).toBe("assistant");
    // Every kept tool result still has its call.
    const calls = new Set(
      trimmed.messages.flatMap((m) =>
        m.role === "assistant" ? m.content.flatMap((b) => (b.type === "toolCall" ? [b.id] : [])) : [],
      ),
    );
    for (const message of trimmed.messages)
      if (message.role === "toolResult") expect(calls.has(message.toolCallId)).toBe(true);
  });
});

describe("context overflow", () => {
  it("emergency-trims with a summary and retries the call once", async () => {
    const treeCall = { toolCalls: [{ name: "get_accessibility_tree", arguments: {} }] };
    h = await harness({
      script: [
        treeCall,
        treeCall,
        treeCall,
        treeCall,
        {
          fail: "status",
          status: 400,
          body: {
            error: {
              message:
                "This model's maximum context length is 8192 tokens. However, you requested 9100 tokens.",
              type: "invalid_request_error",
            },
          },
        },
        (request) => {
          expect(isSummaryRequest(request)).toBe(true);
          return { text: "SUMMARY: four tree reads." };
        },
        { toolCalls: [{ name: "done", arguments: { summary: "Finished after recovering." } }] },
      ],
    });
    const events: AgentEvent[] = [];
    const result = await h.agent.processMessage("1", "long task", { onEvent: (event) => events.push(event) });
    expect(result).toMatchObject({ status: "done", text: "Finished after recovering." });
    expect(events).toContainEqual(
      expect.objectContaining({ type: "context_trimmed", emergency: true, usedModel: true }),
    );
    const overflowed = h.llm.requests[4] as RecordedRequest;
    const retried = h.llm.requests[6] as RecordedRequest;
    expect((retried.body.messages as unknown[]).length).toBeLessThan(
      (overflowed.body.messages as unknown[]).length,
    );
    expect(userTexts(retried)[0]).toContain("SUMMARY: four tree reads.");
  });

  it("reports a typed context_overflow error when the retry overflows too", async () => {
    const overflow: Reply = {
      fail: "status",
      status: 400,
      body: { error: { message: "the request exceeds the available context size" } },
    };
    h = await harness({ script: [overflow, overflow] });
    const result = await h.agent.processMessage("1", "task");
    expect(result.status).toBe("error");
    expect(result.error?.kind).toBe("context_overflow");
    expect(result.text).toMatch(/longer than the model's context window.*start a new conversation/);
  });
});

describe("images", () => {
  it(`keeps only the newest ${KEEP_IMAGES} images in what is sent`, async () => {
    const shot = { toolCalls: [{ name: "screenshot", arguments: {} }] };
    h = await harness({ vision: true, script: [shot, shot, shot, shot, shot, shot, { text: "seen" }] });
    await h.agent.processMessage("1", "look");
    expect(imageCount(h.llm.requests[0] as RecordedRequest)).toBe(1); // the first message's screenshot
    expect(imageCount(h.llm.requests[6] as RecordedRequest)).toBe(KEEP_IMAGES);
  });
});
