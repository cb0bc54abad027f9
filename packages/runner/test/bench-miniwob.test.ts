/**
 * `webbrain bench miniwob` end to end: the CLI's main (asked in this process, run-cli.ts runMain;
 * the bin itself is tested in cli-process.test.ts), real Firefox, MiniWoB++-shaped fixture tasks
 * (packages/testkit/fixtures/miniwob/html, written for these tests), and scripted policies behind
 * testkit's OpenAI-compatible scripted server that read only the tree the agent sends and act
 * by ref. Episodes run two at a time in separate user contexts; the reward comes from the page.
 */
import { fileURLToPath } from "node:url";
import { type ScriptedLlm, startScriptedLlm } from "@webbrain/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { useCliFirefox } from "./cli-firefox.js";
import { miniwobStep } from "./miniwob/scripted-policy.js";
import { runMain } from "./run-cli.js";

const TASKS_DIR = fileURLToPath(new URL("../../testkit/fixtures/miniwob/html", import.meta.url));
/** Enough scripted turns for every episode of the run (each turn answers one request). */
const SCRIPT_TURNS = 400;

// One Firefox for the file, reached through --connect: a CLI start here pays for tsx, not for
// a Firefox launch too (launching is tested in run-command and cli-process).
const firefox = useCliFirefox();

let llm: ScriptedLlm | undefined;
afterEach(async () => {
  await llm?.close();
  llm = undefined;
});

interface EpisodeJson {
  task: string;
  seed: number;
  success: boolean;
  reward: number;
  utterance: string;
  steps: number;
  tokens: { input: number; output: number };
}

describe("webbrain bench miniwob", () => {
  it("runs every fixture task through the agent loop, in parallel user contexts, and scores them from the page", async () => {
    llm = await startScriptedLlm({
      dialect: "openai-chat",
      script: Array.from({ length: SCRIPT_TURNS }, () => (request: Parameters<typeof miniwobStep>[0]) => ({
        ...miniwobStep(request),
        usage: { input: 500, output: 20 },
      })),
    });
    const run = await runMain([
      "bench",
      "miniwob",
      "--tasks-dir",
      TASKS_DIR,
      "--seeds",
      "2",
      "--parallel",
      "2",
      "--base-url",
      llm.baseUrl,
      "--model",
      "scripted-1",
      "--json",
      ...firefox.connectArgs(),
    ]);
    expect(run.code, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout) as {
      summary: {
        episodes: number;
        successes: number;
        successRate: number;
        reference: { successRate: number };
        tasks: Array<{ task: string; successes: number }>;
      };
      episodes: EpisodeJson[];
    };
    expect(out.episodes.map((e) => `${e.task}#${e.seed}`)).toEqual([
      "click-button-lite#0",
      "click-button-lite#1",
      "enter-text-lite#0",
      "enter-text-lite#1",
      "navigate-tree-lite#0",
      "navigate-tree-lite#1",
    ]);
    for (const episode of out.episodes) {
      expect(episode.success, JSON.stringify(episode)).toBe(true);
      expect(episode.reward).toBe(1);
      expect(episode.steps).toBeGreaterThan(0);
      expect(episode.tokens.input).toBeGreaterThan(0);
    }
    // Seeds change the episode: the two click-button episodes ask for different buttons or the
    // same one by chance, but the instruction comes from the page either way.
    expect(out.episodes[0]?.utterance).toMatch(/^Click on the "\w+" button\.$/);
    expect(out.episodes[4]?.utterance).toMatch(/^Navigate through the file tree/);
    expect(out.summary.successes).toBe(6);
    expect(out.summary.successRate).toBe(1);
    expect(out.summary.reference.successRate).toBeCloseTo(0.698);
    // The navigate-tree episodes needed the tree's inferred "collapsed" state and the refs of
    // script-wired folder labels: more than one action each.
    expect(out.episodes[4]?.steps).toBeGreaterThanOrEqual(4);
  }, 240_000);

  it("prints the per-task table with the reference when not asked for JSON, and says what a bad tasks dir is", async () => {
    llm = await startScriptedLlm({
      dialect: "openai-chat",
      script: Array.from({ length: 40 }, () => miniwobStep),
    });
    const run = await runMain([
      "bench",
      "miniwob",
      "--tasks-dir",
      TASKS_DIR,
      "--tasks",
      "click-button-lite",
      "--base-url",
      llm.baseUrl,
      "--model",
      "scripted-1",
      ...firefox.connectArgs(),
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^task\s+success\s+steps\s+tokens\s+seconds/m);
    expect(run.stdout).toMatch(/^click-button-lite\s+1\/1\s/m);
    expect(run.stdout).toMatch(/overall: 1\/1 episodes \(100\.0%\)/);
    expect(run.stdout).toMatch(/published reference: 69\.8% \(BrowserGym GenericAgent/);

    const bad = await runMain(["bench", "miniwob", "--tasks-dir", "/nonexistent", "--base-url", llm.baseUrl]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/not MiniWoB\+\+'s html folder/);
  }, 120_000);
});
