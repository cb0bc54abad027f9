/**
 * Hot path against a fake socket: per-batch time of the firefox_bidi tool path
 * (executeBatchCall -> batch engine -> BidiClient.sendRaw) versus the same
 * commands sent one by one over a bare `ws` client, both against one fake BiDi
 * server in another process. A third line isolates the BidiClient layer
 * (sendRaw alone) so the engine's own share is visible.
 * Two scenarios: the server answers at once (pure client-side cost), and after
 * 1 ms (the floor of Firefox's own service time for a command here).
 * Target: tool overhead under 5 percent. Method: __bench__/README.md.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { connectBidi } from "@webbrain/bidi";
import type { BatchFrameInput } from "@webbrain/bidi/batch";
import { BareWsClient, batchFrames, formatMs, plainCommands, type Stats, stats } from "./batch-shape.js";
import { toolOverSession } from "./tool-runtime.js";

const TARGET_OVERHEAD = 0.05;
const SCENARIOS = [
  { latencyMs: 0, warmup: 100, rounds: Number(process.env.BENCH_ROUNDS ?? 500) },
  { latencyMs: 1, warmup: 20, rounds: Number(process.env.BENCH_ROUNDS_LATENCY ?? 150) },
];

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

/** Per batch: (tool time - time inside sendRaw) / time inside sendRaw, of the last scenario. */
let lastOwnShare: Stats | undefined;

async function scenario(latencyMs: number, warmup: number, rounds: number): Promise<Record<string, Stats>> {
  const server = await startFakeServer(latencyMs);
  const bare = await BareWsClient.connect(`${server.url}/session`);
  const session = await connectBidi(server.url);
  const tool = await toolOverSession(session, process.execPath);
  let offset = 0;
  const ownShares: number[] = [];
  // Tool arguments arrive parsed; preparing them is not the tool's work, so it happens outside the timing.
  const prepare: Record<string, () => () => Promise<void>> = {
    "bare ws (baseline)": () => () => bare.runBatch(),
    "BidiClient.sendRaw": () => async () => {
      const tree = (await session.client.sendRaw({ method: "browsingContext.getTree", params: {} })) as {
        result: { contexts: { context: string }[] };
      };
      for (const command of plainCommands(tree.result.contexts[0]!.context))
        await session.client.sendRaw(command);
    },
    "firefox_bidi tool": () => {
      offset += 100;
      const frames = shiftedFrames(offset);
      return async () => {
        const started = performance.now();
        const { text } = await tool.run({ frames });
        ownShares.push((performance.now() - started - tool.lastRoundTripMs()) / tool.lastRoundTripMs());
        if (text.includes('"status":"error"') || text.includes('"status":"skipped"')) {
          throw new Error(`tool batch failed: ${text.slice(0, 500)}`);
        }
      };
    },
  };
  const names = Object.keys(prepare);
  for (let i = 0; i < warmup; i += 1) for (const name of names) await prepare[name]!()();
  const samples: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
  for (let round = 0; round < rounds; round += 1) {
    // Rotate the order so drift (GC, CPU contention) hits every side alike.
    for (let k = 0; k < names.length; k += 1) {
      const name = names[(round + k) % names.length]!;
      const run = prepare[name]!();
      const started = performance.now();
      await run();
      samples[name]!.push(performance.now() - started);
    }
  }
  bare.close();
  await tool.dispose();
  server.child.stdin?.end();
  lastOwnShare = stats(ownShares.slice(warmup));
  return Object.fromEntries(names.map((name) => [name, stats(samples[name]!)]));
}

const frameCount = batchFrames().length;
console.log(
  `firefox_bidi hot path: ${frameCount}-frame batch, sequential, fake BiDi server over ws (separate process)`,
);
for (const { latencyMs, warmup, rounds } of SCENARIOS) {
  const results = await scenario(latencyMs, warmup, rounds);
  const baseline = results["bare ws (baseline)"]!;
  const tool = results["firefox_bidi tool"]!;
  console.log(`\nserver latency ${latencyMs} ms per command, ${rounds} rounds:`);
  for (const [name, s] of Object.entries(results)) {
    const ratio = s.median / baseline.median;
    console.log(
      `  ${name.padEnd(20)} median ${formatMs(s.median)}  mean ${formatMs(s.mean)}  p90 ${formatMs(s.p90)}  ${ratio.toFixed(3)}x baseline`,
    );
  }
  const overhead = (tool.median - baseline.median) / baseline.median;
  const perFrameUs = ((tool.median - baseline.median) / frameCount) * 1000;
  const own = lastOwnShare!;
  console.log(
    `  tool vs bare ws: +${(overhead * 100).toFixed(1)}% (${perFrameUs.toFixed(0)} us per frame, BidiClient layer included)`,
  );
  console.log(
    `  tool overhead over its own round trips (time outside sendRaw / time inside, per batch): median ${(own.median * 100).toFixed(1)}%; target < ${TARGET_OVERHEAD * 100}%: ${own.median < TARGET_OVERHEAD ? "met" : "not met"}`,
  );
}
