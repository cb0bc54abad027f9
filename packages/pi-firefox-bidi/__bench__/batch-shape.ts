/**
 * The batch both benchmarks send, and the baselines that send the same
 * commands one by one: a frame goes out only after the previous one answered,
 * exactly as the tool does, so the comparison is per-frame work, not pipelining.
 */
import { FirefoxNotFoundError } from "@webbrain/bidi";
import type { BatchFrameInput } from "@webbrain/bidi/batch";
import WebSocket from "ws";

export const PAGE_URL =
  "data:text/html,<title>bench</title><h1>Hello</h1><p>A small page for the batch benchmark.</p>";

/** 10 frames: tree, navigate, 6 evaluations, a viewport screenshot, tree. References as a model writes them. */
export function batchFrames(): BatchFrameInput[] {
  const context = "{{1.result.contexts.0.context}}";
  return [
    { id: 1, method: "browsingContext.getTree", params: {} },
    { id: 2, method: "browsingContext.navigate", params: { context, url: PAGE_URL, wait: "complete" } },
    ...Array.from({ length: 6 }, (_, i) => ({
      id: 3 + i,
      method: "script.evaluate",
      params: { expression: `document.title.length + ${i}`, target: { context }, awaitPromise: false },
    })),
    { id: 9, method: "browsingContext.captureScreenshot", params: { context } },
    { id: 10, method: "browsingContext.getTree", params: {} },
  ];
}

/** The placeholder the batch uses for the first context of frame 1's tree. */
const CONTEXT_REFERENCE = "{{1.result.contexts.0.context}}";

/** A copy of `value` with every CONTEXT_REFERENCE string replaced by `context`. */
function fillContext(value: unknown, context: string): unknown {
  if (value === CONTEXT_REFERENCE) return context;
  if (Array.isArray(value)) return value.map((item) => fillContext(item, context));
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value))
      out[key] = fillContext((value as Record<string, unknown>)[key], context);
    return out;
  }
  return value;
}

/**
 * The batch for a hand-written client: the frames after the first, each with
 * its params built from the context the first answer named. The templates are
 * made here, once; filling one in is a small copy, what any client does.
 */
export function bareFrameBuilders(): {
  method: string;
  params: (context: string) => Record<string, unknown>;
}[] {
  return batchFrames()
    .slice(1)
    .map((frame) => {
      const template = frame.params ?? {};
      return {
        method: frame.method,
        params: (context) => fillContext(template, context) as Record<string, unknown>,
      };
    });
}

/** The same commands as plain objects, with the context filled in by hand. */
export function plainCommands(context: string): { method: string; params: Record<string, unknown> }[] {
  return batchFrames()
    .slice(1)
    .map((frame) => ({
      method: frame.method,
      params: JSON.parse(JSON.stringify(frame.params).replaceAll("{{1.result.contexts.0.context}}", context)),
    }));
}

/** A bare `ws` client: JSON out, match the answer by id, nothing else. */
export class BareWsClient {
  #nextId = 1;
  readonly #pending = new Map<number, (frame: Record<string, unknown>) => void>();

  private constructor(readonly socket: WebSocket) {
    socket.on("message", (data) => {
      const frame = JSON.parse(data.toString()) as Record<string, unknown>;
      const id = frame.id;
      if (typeof id !== "number") return;
      const resolve = this.#pending.get(id);
      this.#pending.delete(id);
      resolve?.(frame);
    });
  }

  static async connect(url: string): Promise<BareWsClient> {
    const socket = new WebSocket(url, { perMessageDeflate: false });
    await new Promise<void>((resolve, reject) => {
      socket.once("open", () => resolve());
      socket.once("error", reject);
    });
    return new BareWsClient(socket);
  }

  send(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    const id = this.#nextId++;
    return new Promise((resolve) => {
      this.#pending.set(id, resolve);
      this.socket.send(JSON.stringify({ id, method, params }));
    });
  }

  /** One batch, one frame at a time. */
  async runBatch(): Promise<void> {
    const tree = (await this.send("browsingContext.getTree", {})) as {
      result: { contexts: { context: string }[] };
    };
    const context = tree.result.contexts[0]!.context;
    for (const command of plainCommands(context)) {
      const answer = await this.send(command.method, command.params);
      if (answer.type !== "success") throw new Error(`${command.method} failed: ${JSON.stringify(answer)}`);
    }
  }

  /**
   * One batch from prepared builders (see bareFrameBuilders), one frame at a
   * time: the raw round trips the tool makes for the same batch.
   */
  async runPreparedBatch(builders: ReturnType<typeof bareFrameBuilders>): Promise<void> {
    const tree = (await this.send("browsingContext.getTree", {})) as {
      result: { contexts: { context: string }[] };
    };
    const context = tree.result.contexts[0]!.context;
    for (const builder of builders) {
      const answer = await this.send(builder.method, builder.params(context));
      if (answer.type !== "success") throw new Error(`${builder.method} failed: ${JSON.stringify(answer)}`);
    }
  }

  close(): void {
    this.socket.close();
  }
}

export interface Stats {
  median: number;
  mean: number;
  p90: number;
  n: number;
}

export function stats(samples: number[]): Stats {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return {
    median: at(0.5),
    mean: samples.reduce((a, b) => a + b, 0) / samples.length,
    p90: at(0.9),
    n: samples.length,
  };
}

export function formatMs(value: number): string {
  return `${value.toFixed(3)} ms`;
}

export function explainMissingFirefox(error: unknown): never {
  if (error instanceof FirefoxNotFoundError) {
    process.stderr.write(`bench:e2e needs Firefox: ${error.message}\n`);
    process.exit(2);
  }
  throw error;
}
