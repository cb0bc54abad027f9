/**
 * Bench: throughput of `webbrain run --tasks FILE --parallel N` (N user contexts in one Firefox)
 * against the baseline of N separate `webbrain run` processes at a time (N Firefoxes), on the
 * same sign-in task, the same scripted model (real HTTP, answers at once) and fixture server,
 * in the same run. Prints tasks per minute for each and the ratio.
 *
 * The model answers instantly, so the figures are the browser side's cost: launches, contexts,
 * page loads and tool calls. Run once near the end and write `uptime`'s load beside the figures.
 *
 * Run: npx tsx packages/runner/bench/parallel-tasks.ts   (BENCH_TASKS=8 BENCH_PARALLEL=4)
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startFixtureServer, startScriptedLlm } from "@webbrain/testkit";
import { SIGN_IN_TURNS, signInScript } from "../test/sign-in-script.js";

const TASKS = Number(process.env.BENCH_TASKS ?? 8);
const PARALLEL = Number(process.env.BENCH_PARALLEL ?? 4);
const BIN = fileURLToPath(new URL("../bin/webbrain.js", import.meta.url));

function runBin(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stderr }));
  });
}

async function timed(label: string, body: () => Promise<number>): Promise<number> {
  const started = performance.now();
  const finished = await body();
  const seconds = (performance.now() - started) / 1000;
  const perMinute = (TASKS / seconds) * 60;
  console.log(
    `${label.padEnd(44)} ${seconds.toFixed(1).padStart(6)} s  ${perMinute.toFixed(1).padStart(6)} tasks/min  (${finished}/${TASKS} done)`,
  );
  return perMinute;
}

const server = await startFixtureServer();
const work = await mkdtemp(join(tmpdir(), "webbrain-bench-parallel-"));
try {
  const url = server.url("/runner/account-login.html");
  const model = ["--model", "scripted-1"];
  console.log(
    `parallel tasks: ${TASKS} sign-in tasks (${SIGN_IN_TURNS} model turns each), ${PARALLEL} at a time; load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );

  const llmA = await startScriptedLlm({ dialect: "openai-chat", script: signInScript(TASKS) });
  const file = join(work, "tasks.jsonl");
  await writeFile(
    file,
    `${Array.from({ length: TASKS }, (_, i) => JSON.stringify({ task: `sign in (${i + 1})`, url })).join("\n")}\n`,
  );
  const contexts = await timed(`one Firefox, --parallel ${PARALLEL} user contexts`, async () => {
    const run = await runBin([
      "run",
      "--tasks",
      file,
      "--parallel",
      String(PARALLEL),
      "--base-url",
      llmA.baseUrl,
      ...model,
    ]);
    const match = /(\d+)\/\d+ tasks finished/.exec(run.stderr);
    if (!match) throw new Error(`webbrain run --tasks failed (${run.code}): ${run.stderr}`);
    return Number(match[1]);
  });
  await llmA.close();

  const llmB = await startScriptedLlm({ dialect: "openai-chat", script: signInScript(TASKS) });
  const processes = await timed(`baseline: ${PARALLEL} separate processes at a time`, async () => {
    let next = 0;
    let done = 0;
    const worker = async () => {
      while (next < TASKS) {
        next++;
        const run = await runBin(["run", "sign in", "--url", url, "--base-url", llmB.baseUrl, ...model]);
        if (run.code === 0) done++;
      }
    };
    await Promise.all(Array.from({ length: PARALLEL }, worker));
    return done;
  });
  await llmB.close();

  console.log(`ratio: user contexts / separate processes = ${(contexts / processes).toFixed(2)}x throughput`);
  console.log(
    `load after: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
} finally {
  await server.close();
  await rm(work, { recursive: true, force: true });
}
