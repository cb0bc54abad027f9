/**
 * Step screenshots in traces (format 2) and the filmstrip page, browser-free: what the recorder
 * keeps per step and when it keeps nothing, that a format 1 trace still loads and renders, and
 * that the page escapes what a trace file holds. (The JPEG path over BiDi and the page as
 * Firefox shows it are tested by the runner in real Firefox.)
 */
import { describe, expect, it } from "vitest";
import {
  parseTrace,
  TRACE_FORMAT_VERSION,
  type TraceRecord,
  TraceRecorder,
  type TraceToolCall,
  traceFilmstripHtml,
} from "../src/index.js";
import { MemoryBrowser } from "./memory-browser.js";
import { line } from "./scripted-tree.js";

const PAGE = "https://shop.example/";

function browser(): MemoryBrowser {
  return new MemoryBrowser(
    {
      [PAGE]: {
        title: "Shop",
        tree: [line(0, "textbox", "Email", { ref: 1 }), line(0, "button", "Save", { ref: 2 })],
        onAction: (action) =>
          action === "inspect_element_styles"
            ? {
                success: true,
                rect: { x: 100.4, y: 50, width: 80, height: 20 },
                viewport: { width: 800, height: 600 },
              }
            : { success: true },
      },
    },
    PAGE,
  );
}

/** One type_ax and one click_ax through the recorder's port, as the agent makes them. */
async function run(maxBytes: number): Promise<{ records: TraceRecord[]; port: MemoryBrowser }> {
  const inner = browser();
  const recorder = new TraceRecorder({ task: "save", mode: "act", url: PAGE, shots: { maxBytes } });
  const port = recorder.port(inner);
  const calls = [
    { id: "a", name: "type_ax", args: { ref_id: 1, value: "ada@example.com" } },
    { id: "b", name: "click_ax", args: { ref_id: 2 } },
  ] as const;
  for (const call of calls) {
    recorder.onEvent({ type: "tool_call", id: call.id, name: call.name, args: call.args });
    await port.pageAction("1", call.name, call.args);
    await port.pageAction("1", "probe_completion", {});
    recorder.onEvent({ type: "tool_result", id: call.id, name: call.name, ok: true, preview: "ok" });
  }
  recorder.onEvent({ type: "run_end", result: { status: "done", text: "saved", steps: 2 } });
  return { records: recorder.records, port: inner };
}

function toolCalls(records: readonly TraceRecord[]): TraceToolCall[] {
  return records.filter((r): r is TraceToolCall => r.type === "tool_call");
}

describe("step screenshots", () => {
  it("keeps one shot per tool call, taken before it acts, with the acted-on element's box", async () => {
    const { records, port } = await run(10_000);
    expect(records[0]).toMatchObject({ v: TRACE_FORMAT_VERSION, shots: { maxBytes: 10_000 } });
    const [typed, clicked] = toolCalls(records);
    expect(typed!.shot).toMatchObject({
      mimeType: "image/png",
      bytes: 68,
      viewport: { width: 800, height: 600 },
      box: { x: 100, y: 50, width: 80, height: 20 },
    });
    expect(clicked!.shot?.box).toEqual({ x: 100, y: 50, width: 80, height: 20 });
    // Per call: the box lookup and the shot, then the action itself; the second action of the
    // same call (probe_completion) takes none.
    const order = port.calls.map((c) => c.action ?? c.method).filter((name) => name !== "getTab");
    expect(order.slice(0, 4)).toEqual([
      "inspect_element_styles",
      "screenshot",
      "type_ax",
      "probe_completion",
    ]);
    expect(order.filter((name) => name === "screenshot")).toHaveLength(2);
  });

  it("keeps no shot over the byte cap and says how many were dropped", async () => {
    const { records } = await run(10);
    expect(toolCalls(records).every((call) => call.shot === undefined)).toBe(true);
    expect(records).toContainEqual(
      expect.objectContaining({
        type: "note",
        text: expect.stringMatching(/^2 step screenshots were over 10 bytes/),
      }),
    );
  });

  it("takes none when shots are off", async () => {
    const inner = browser();
    const recorder = new TraceRecorder({ task: "save", mode: "act", url: PAGE });
    recorder.onEvent({ type: "tool_call", id: "a", name: "click_ax", args: { ref_id: 2 } });
    await recorder.port(inner).pageAction("1", "click_ax", { ref_id: 2 });
    expect(inner.calls.map((c) => c.method)).not.toContain("screenshot");
    expect(recorder.records[0]).not.toHaveProperty("shots");
  });
});

describe("the filmstrip page", () => {
  it("has a frame per tool call and one for the end, the box drawn and the typed text shown", async () => {
    const { records } = await run(10_000);
    const html = traceFilmstripHtml(records);
    expect(html.match(/<section class="frame/g)).toHaveLength(3);
    // 100/800 of the width, 50/600 of the height.
    expect(html).toContain('class="box" style="left:12.50%;top:8.33%;width:10.00%;height:3.33%"');
    expect(html).toContain("typed: &#34;ada@example.com&#34;");
    expect(html).toContain('src="data:image/png;base64,iVBOR');
    expect(html).not.toMatch(/<script|https?:\/\/(?!shop\.example)/);
  });

  it("renders a format 1 trace (no shots) with every step, and escapes what the file holds", () => {
    const v1 = [
      '{"v":1,"type":"run_start","at":"2026-01-01T00:00:00.000Z","runId":"r1","task":"<b>old</b>","mode":"act","url":"","verbose":"normal"}',
      '{"v":1,"type":"tool_call","at":"2026-01-01T00:00:01.000Z","id":"a","name":"click_ax","args":{"ref_id":3},"ok":true,"ms":5,"text":"ok","url":""}',
      '{"v":1,"type":"tool_call","at":"2026-01-01T00:00:02.000Z","id":"b","name":"type_ax","args":{"ref_id":4,"value":"[secret]"},"ok":true,"ms":5,"text":"ok","url":"","shot":{"mimeType":"text/html","dataBase64":"PHNjcmlwdD4=","bytes":8}}',
      '{"v":1,"type":"run_end","at":"2026-01-01T00:00:03.000Z","status":"done","text":"done","steps":1}',
    ].join("\n");
    const html = traceFilmstripHtml(parseTrace(v1));
    expect(html.match(/<section class="frame/g)).toHaveLength(3);
    expect(html).toContain("&#60;b&#62;old&#60;/b&#62;");
    expect(html).not.toContain("<b>old");
    // An image that is not an image type is not put into a data: URL.
    expect(html).not.toContain("data:text/html");
    expect(html).toContain("typed: &#34;[secret]&#34;");
  });
});
