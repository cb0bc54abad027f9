/**
 * `npx tsx packages/runner/bench/miniwob-scripted.ts <miniwob/html dir> [parallel] [seeds]`:
 * the scripted tree-reading policies (test/miniwob/scripted-policy.ts) over every task of a
 * local MiniWoB++ copy, through `webbrain bench miniwob`'s own harness and the real agent loop.
 * Prints the per-task table, and which tasks no scripted policy covers.
 */
import { PiAiClient } from "@webbrain/agent";
import { startScriptedLlm } from "@webbrain/testkit";
import { formatTable, summarize } from "../src/bench-miniwob/miniwob-report.js";
import { listMiniwobTasks, serveTasks } from "../src/bench-miniwob/miniwob-tasks.js";
import { runMiniwob } from "../src/bench-miniwob/run-miniwob.js";
import { SessionBrowser } from "../src/browser/isolated-sessions.js";
import { loadPageScript } from "../src/port/page-script-source.js";
import { providerFromFlags } from "../src/run/provider-options.js";
import { miniwobStep } from "../test/miniwob/scripted-policy.js";

const [dir, parallelArg, seedsArg] = process.argv.slice(2);
if (!dir) throw new Error("usage: miniwob-scripted.ts <miniwob/html dir> [parallel] [seeds]");
const tasks = await listMiniwobTasks(dir);
const seeds = Number(seedsArg ?? 1);
const llm = await startScriptedLlm({
  dialect: "openai-chat",
  script: Array.from({ length: tasks.length * seeds * 45 }, () => miniwobStep),
});
// Full tier: the policies stand for a capable model, which the agent offers hover and drag
// (a jQuery UI menu opens its submenus only on hover); a compact model gets neither.
const provider = providerFromFlags({ baseUrl: llm.baseUrl, model: "scripted-1", tier: "full" }, process.env);
const server = await serveTasks(dir);
const browser = await SessionBrowser.open({ pageScript: loadPageScript });
try {
  let done = 0;
  const results = await runMiniwob(browser, server, {
    tasks,
    seeds,
    parallel: Number(parallelArg ?? 3),
    maxSteps: 40,
    episodeMs: 120_000,
    provider,
    llm: () => new PiAiClient(provider),
    onEpisode: (r) =>
      process.stderr.write(
        `${++done}/${tasks.length * seeds} ${r.task} ${r.success ? "ok" : `failed (${r.error ?? r.ended})`}\n`,
      ),
  });
  console.log(formatTable(summarize(results, "scripted policies")));
  console.log("\nper episode (task, seed, reward, ended, utterance):");
  for (const r of results)
    console.log(`${r.task}\t${r.seed}\t${r.reward}\t${r.error ?? r.ended}\t${r.utterance}`);
} finally {
  await browser.close();
  await server.close();
  await llm.close();
}
