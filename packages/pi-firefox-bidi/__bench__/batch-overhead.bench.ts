/**
 * Hot path against a fake socket: per-batch time of the firefox_bidi tool path
 * (executeBatchCall -> batch engine -> sendAnswerFrame) versus the raw
 * socket round trips it makes: the same frames sent one by one, each after the
 * previous answered, over a bare `ws` client to the same fake BiDi server (in
 * another process). A third line, sendAnswerFrame alone, shows how the
 * overhead splits between the client layer and the engine and tool.
 * Two scenarios: the server answers at once (pure client-side cost), and after
 * 1 ms (the floor of Firefox's own service time for a command here).
 * Target: tool overhead over the bare round trips under 5 percent.
 * Method: __bench__/README.md.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { connectBidi } from "@webbrain/bidi";
import { type BatchFrameInput, sendAnswerFrame } from "@webbrain/bidi/batch";
import { BareWsClient, bareFrameBuilders, batchFrames, formatMs, type Stats, stats } from "./batch-shape.js";
import { toolOverSession } from "./tool-runtime.js";

const TARGET_OVERHEAD = 0.05;
const BASELINE = "bare ws (baseline)";
const TOOL = "firefox_bidi tool";
const SCENARIOS = [
  { latencyMs: 0, warmup: 200, rounds: Number(process.env.BENCH_ROUNDS ?? 600) },
  { latencyMs: 1, warmup: 30, rounds: Number(process.env.BENCH_ROUNDS_LATENCY ?? 200) },
];
const MICROS_PER_MILLI = 1000;

async function startFakeServer(latencyMs: number): Promise<{ url: string; child: ChildProcess }> {
  const file = fileURLToPath(new URL("./fake-bidi-server.ts", import.meta.url));
  const child = spawn(process.execPath, ["--import", "tsx", file], {
    stdio: ["pipe", "pipe", "inherit"],
    env: { ...process.env, FAKE_LATENCY_MS: String(latencyMs) },
  });
  const port = await new Promise<number>((resolve, reject) => {
    let out = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const match = /PORT (\d+)/.exec(out);
      if (match) resolve(Number(match[1]));
    });
    child.once("exit", (code) => reject(new Error(`fake server exited (${code})`)));
  });
  return { url: `ws://127.0.0.1:${port}`, child };
}

/** The batch with ids shifted so that no id repeats across batches (the tool never reuses one). */
function shiftedFrames(offset: number): BatchFrameInput[] {
  return batchFrames().map((frame) => ({
    ...frame,
    id: (frame.id ?? 0) + offset,
    params: JSON.parse(JSON.stringify(frame.params).replaceAll("{{1.", `{{${1 + offset}.`)),
  }));
}

interface Way {
  /** Hands over the way's input for one batch (made in advance), before the clock starts. */
  prepare(): () => Promise<void>;
  /** Runs after the clock stopped: checks what the batch produced. */
  check?(): void;
}

interface ScenarioResult {
  wall: Record<string, Stats>;
  cpu: Record<string, Stats>;
  /** Per round: tool time / baseline time - 1, both measured in that round. */
  paired: Stats;
}

async function scenario(latencyMs: number, warmup: number, rounds: number): Promise<ScenarioResult> {
  const server = await startFakeServer(latencyMs);
  const bare = await BareWsClient.connect(`${server.url}/session`);
  const session = await connectBidi(server.url);
  const tool = await toolOverSession(session, process.execPath);
  const builders = bareFrameBuilders();
  // Every input is made before the first round, so the garbage of making it is not collected
  // while a way is being timed (the baseline's inputs are made once and reused).
  const batches = warmup + rounds;
  const toolCalls = Array.from({ length: batches }, (_, index) => ({
    frames: shiftedFrames(100 * (index + 1)),
    signal: new AbortController().signal,
  }));
  const rawOptions = Array.from({ length: batches }, () => ({
    signal: new AbortController().signal,
    timeoutMs: 30_000,
    captureStack: false,
  }));
  let lastText = "";
  const ways: Record<string, Way> = {
    [BASELINE]: { prepare: () => () => bare.runPreparedBatch(builders) },
    "sendAnswerFrame (client + wire answers)": {
      // The client layer alone, called as the tool calls it: a signal, a timeout, no stack capture.
      prepare: () => {
        const options = rawOptions.pop()!;
        return async () => {
          const tree = (await sendAnswerFrame(
            session.client,
            { method: "browsingContext.getTree", params: {} },
            options,
          )) as { result: { contexts: { context: string }[] } };
          const context = tree.result.contexts[0]!.context;
          for (const builder of builders) {
            const answer = (await sendAnswerFrame(
              session.client,
              { method: builder.method, params: builder.params(context) },
              options,
            )) as { type: string };
            if (answer.type !== "success") throw new Error(`${builder.method} failed`);
          }
        };
      },
    },
    [TOOL]: {
      // Tool arguments arrive parsed, with an AbortSignal for the call; making them is Pi's work.
      prepare: () => {
        const { frames, signal } = toolCalls.pop()!;
        return async () => {
          lastText = (await tool.run({ frames }, signal)).text;
        };
      },
      check: () => {
        if (lastText.includes('"status":"error"') || lastText.includes('"status":"skipped"')) {
          throw new Error(`tool batch failed: ${lastText.slice(0, 500)}`);
        }
      },
    },
  };
  const names = Object.keys(ways);
  for (let i = 0; i < warmup; i += 1) {
    for (const name of names) {
      await ways[name]!.prepare()();
      ways[name]!.check?.();
    }
  }
  const wall: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
  const cpu: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
  const paired: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    const roundWall: Record<string, number> = {};
    // Rotate the order so drift (GC, CPU contention) hits every way alike.
    for (let k = 0; k < names.length; k += 1) {
      const name = names[(round + k) % names.length]!;
      const way = ways[name]!;
      const run = way.prepare();
      const cpuBefore = process.cpuUsage();
      const started = performance.now();
      await run();
      const elapsed = performance.now() - started;
      const cpuUsed = process.cpuUsage(cpuBefore);
      way.check?.();
      roundWall[name] = elapsed;
      wall[name]!.push(elapsed);
      cpu[name]!.push((cpuUsed.user + cpuUsed.system) / MICROS_PER_MILLI);
    }
    paired.push(roundWall[TOOL]! / roundWall[BASELINE]! - 1);
  }
  bare.close();
  await tool.dispose();
  server.child.stdin?.end();
  const summarize = (samples: Record<string, number[]>) =>
    Object.fromEntries(names.map((name) => [name, stats(samples[name]!)]));
  return { wall: summarize(wall), cpu: summarize(cpu), paired: stats(paired) };
}

const frameCount = batchFrames().length;
console.log(
  `firefox_bidi hot path: ${frameCount}-frame batch, sequential, fake BiDi server over ws (separate process)`,
);
for (const { latencyMs, warmup, rounds } of SCENARIOS) {
  const { wall, cpu, paired } = await scenario(latencyMs, warmup, rounds);
  const baseline = wall[BASELINE]!;
  const tool = wall[TOOL]!;
  console.log(`\nserver latency ${latencyMs} ms per command, ${rounds} rounds:`);
  for (const [name, s] of Object.entries(wall)) {
    console.log(
      `  ${name.padEnd(20)} median ${formatMs(s.median)}  p90 ${formatMs(s.p90)}  ${(s.median / baseline.median).toFixed(3)}x baseline  (client CPU ${formatMs(cpu[name]!.median)})`,
    );
  }
  const overhead = tool.median / baseline.median - 1;
  const perFrameUs = ((tool.median - baseline.median) / frameCount) * MICROS_PER_MILLI;
  const cpuPerFrameUs = ((cpu[TOOL]!.median - cpu[BASELINE]!.median) / frameCount) * MICROS_PER_MILLI;
  console.log(
    `  tool overhead over its raw round trips (median tool / median bare ws - 1): ${(overhead * 100).toFixed(1)}%; target < ${TARGET_OVERHEAD * 100}%: ${overhead < TARGET_OVERHEAD ? "met" : "not met"}`,
  );
  console.log(
    `  same, paired per round (median of tool / bare ws - 1): ${(paired.median * 100).toFixed(1)}%; per frame: +${perFrameUs.toFixed(1)} us wall, +${cpuPerFrameUs.toFixed(1)} us client CPU`,
  );
}
