// The scripted LLM servers, exercised through pi-ai itself: if pi-ai's SDK-based clients parse
// what the servers send, the wire formats are right.
import { type Api, type Context, complete, type Model, stream } from "@mariozechner/pi-ai";
import { Type } from "typebox";
import { afterEach, describe, expect, it } from "vitest";
import {
  type Dialect,
  findRef,
  lastToolResultText,
  type ScriptedLlm,
  startScriptedLlm,
  systemPromptText,
  toolNames,
  useBedrockOverHttp1,
} from "../src/llm/index.js";

const API_OF: Record<Dialect, Api> = {
  "openai-chat": "openai-completions",
  "openai-responses": "openai-responses",
  anthropic: "anthropic-messages",
  bedrock: "bedrock-converse-stream",
};

useBedrockOverHttp1();

/** Per-call options: a key, and for Bedrock a region and its bearer token (API key). */
function keyed(dialect: Dialect, extra: Record<string, unknown> = {}) {
  return {
    apiKey: "k",
    ...(dialect === "bedrock" ? { region: "us-east-1", bearerToken: "k" } : {}),
    ...extra,
  };
}

function modelFor(llm: ScriptedLlm, dialect: Dialect): Model<Api> {
  return {
    id: "scripted-1",
    name: "scripted",
    api: API_OF[dialect],
    provider: "scripted",
    baseUrl: llm.baseUrl,
    reasoning: false,
    input: ["text", "image"],
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    contextWindow: 32_000,
    maxTokens: 1024,
  };
}

const clickTool = {
  name: "click_ax",
  description: "Click by ref",
  parameters: Type.Object({ ref_id: Type.Number() }),
};

const TREE = '[1] heading "Shop"\n[4] button "Add to cart"\n[7] button "Checkout"';

let open: ScriptedLlm[] = [];
afterEach(async () => {
  await Promise.all(open.map((llm) => llm.close()));
  open = [];
});

async function start(...args: Parameters<typeof startScriptedLlm>): Promise<ScriptedLlm> {
  const llm = await startScriptedLlm(...args);
  open.push(llm);
  return llm;
}

describe.each(["openai-chat", "openai-responses", "anthropic", "bedrock"] as const)(
  "%s through pi-ai",
  (dialect) => {
    it("streams text, then a tool call chosen from the last tool result", async () => {
      const llm = await start({
        dialect,
        script: [
          { text: "Looking at the page first.", toolCalls: [{ name: "click_ax", arguments: { ref_id: 1 } }] },
          (request) => ({
            toolCalls: [
              {
                name: "click_ax",
                arguments: { ref_id: findRef(lastToolResultText(request), "button", "Checkout") },
              },
            ],
          }),
          { text: "All done." },
        ],
      });
      const model = modelFor(llm, dialect);
      const context: Context = {
        systemPrompt: "You drive a browser.",
        messages: [{ role: "user", content: "buy it", timestamp: Date.now() }],
        tools: [clickTool],
      };

      const first = await complete(model, context, keyed(dialect));
      expect(first.stopReason).toBe("toolUse");
      expect(first.content.find((block) => block.type === "text")).toMatchObject({
        text: "Looking at the page first.",
      });
      const call = first.content.find((block) => block.type === "toolCall");
      expect(call).toMatchObject({ name: "click_ax", arguments: { ref_id: 1 } });
      if (call?.type !== "toolCall") throw new Error("no tool call");

      context.messages.push(first, {
        role: "toolResult",
        toolCallId: call.id,
        toolName: call.name,
        content: [{ type: "text", text: JSON.stringify({ success: true, tree: TREE }) }],
        isError: false,
        timestamp: Date.now(),
      });
      const second = await complete(model, context, keyed(dialect));
      expect(second.content.find((block) => block.type === "toolCall")).toMatchObject({
        arguments: { ref_id: 7 },
      });

      context.messages.push(second);
      const third = await complete(model, context, keyed(dialect));
      expect(third.stopReason).toBe("stop");
      expect(third.content).toEqual([expect.objectContaining({ type: "text", text: "All done." })]);

      expect(llm.requests).toHaveLength(3);
      expect(systemPromptText(llm.requests[0]!)).toBe("You drive a browser.");
      expect(toolNames(llm.requests[0]!)).toEqual(["click_ax"]);
      expect(llm.remaining()).toBe(0);
    });

    it("answers 500 with a clear message once the script is exhausted", async () => {
      const llm = await start({ dialect, script: [] });
      const reply = await complete(
        modelFor(llm, dialect),
        { messages: [{ role: "user", content: "hi", timestamp: 0 }] },
        keyed(dialect, { maxRetries: 0 }),
      );
      expect(reply.stopReason).toBe("error");
      expect(reply.errorMessage).toContain("script exhausted");
    });

    it("fails on demand: a status, a dropped stream, a hang the client aborts", async () => {
      const llm = await start({
        dialect,
        script: [
          { fail: "status", status: 401 },
          { fail: "drop-mid-stream" },
          { fail: "hang", midStream: true },
        ],
      });
      const model = modelFor(llm, dialect);
      const ctx: Context = { messages: [{ role: "user", content: "hi", timestamp: 0 }] };

      const unauthorized = await complete(model, ctx, keyed(dialect, { maxRetries: 0 }));
      expect(unauthorized.stopReason).toBe("error");
      expect(unauthorized.errorMessage).toMatch(/401/);

      const dropped = await complete(model, ctx, keyed(dialect, { maxRetries: 0 }));
      expect(dropped.stopReason).toBe("error");

      const controller = new AbortController();
      const events = stream(model, ctx, keyed(dialect, { maxRetries: 0, signal: controller.signal }));
      let sawStart = false;
      for await (const event of events) {
        if (event.type === "start" || event.type === "text_start") {
          sawStart = true;
          controller.abort();
        }
      }
      const hung = await events.result();
      expect(sawStart).toBe(true);
      expect(hung.stopReason).toBe("aborted");
    });

    it.skipIf(dialect === "bedrock")("lists models for a connection test", async () => {
      const llm = await start({ dialect, script: [], models: ["a", "b"] });
      const response = await fetch(`${llm.baseUrl.replace(/\/v1$/, "")}/v1/models`);
      const body = (await response.json()) as { data: { id: string }[] };
      expect(body.data.map((model) => model.id)).toEqual(["a", "b"]);
      expect(llm.otherRequests).toHaveLength(1);
      expect(llm.requests).toHaveLength(0);
    });
  },
);

describe("openai-chat plain JSON", () => {
  it("answers a non-streaming request with a chat.completion object", async () => {
    const llm = await start({
      dialect: "openai-chat",
      stream: false,
      script: [{ toolCalls: [{ name: "click_ax", arguments: { ref_id: 3 }, id: "call_x" }] }],
    });
    const response = await fetch(`${llm.baseUrl}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model: "scripted-1",
        messages: [{ role: "user", content: "hi" }],
        stream: false,
      }),
    });
    const body = (await response.json()) as {
      object: string;
      choices: {
        finish_reason: string;
        message: { tool_calls: { id: string; function: { arguments: string } }[] };
      }[];
    };
    expect(body.object).toBe("chat.completion");
    expect(body.choices[0]?.finish_reason).toBe("tool_calls");
    expect(body.choices[0]?.message.tool_calls[0]).toMatchObject({
      id: "call_x",
      function: { arguments: '{"ref_id":3}' },
    });
  });
});

describe("findRef", () => {
  it("picks by exact name, then by substring, and explains a miss", () => {
    expect(findRef(TREE, "button", "Checkout")).toBe(7);
    expect(findRef(TREE, "button", "cart")).toBe(4);
    expect(() => findRef(TREE, "link", "Home")).toThrow(/no link named "Home"/);
    expect(findRef(JSON.stringify({ tree: TREE }), "button", "Checkout")).toBe(7);
  });
});
