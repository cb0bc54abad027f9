/**
 * One MiniWoB++ episode through the real agent loop: a fresh user context and tab on the task
 * page, the episode started as MiniWoB++'s own harness starts it (seed the page's RNG, lift the
 * time limit, `core.startEpisodeReal()`), the utterance (`#query`) given to the agent as its
 * task, and the reward read from the page's `WOB_*` globals that core.js sets in endEpisode.
 *
 * Invariants:
 * - The agent is stopped (its AbortSignal) as soon as the page reports the episode done: after
 *   endEpisode, core.js covers the page with a START button that would begin a new episode.
 * - Success is a raw reward above 0 (MiniWoB++'s own convention); an episode the page never
 *   ended scores 0 and says why (the agent's status).
 * - The user context is removed however the episode ends.
 */
import type { LlmClient, ProviderConfig } from "@webbrain/agent";
import { evaluate } from "@webbrain/bidi";
import type { SessionBrowser } from "../browser/isolated-sessions.js";
import { assembleRunnerAgent } from "../run/agent-assembly.js";
import { CountingLlm, type TokenUsage } from "../run/counting-llm.js";

/** How often the page's reward globals are read while the agent works. */
const REWARD_POLL_MS = 200;

export interface EpisodeSpec {
  task: string;
  seed: number;
  url: string;
  maxSteps: number;
  /** MiniWoB++'s own episode limit, replaced (its default of 10 s is meant for scripts). */
  episodeMs: number;
}

export interface EpisodeResult {
  task: string;
  seed: number;
  success: boolean;
  /** The raw reward the page reported (-1..1), 0 when it never ended the episode. */
  reward: number;
  utterance: string;
  /** Why it ended: the page's reason, or the agent's status when the page never ended it. */
  ended: string;
  steps: number;
  tokens: TokenUsage;
  ms: number;
  error?: string;
}

interface PageReward {
  done: boolean;
  raw: number;
  reason: string | null;
}

const READ_REWARD =
  "({ done: WOB_DONE_GLOBAL === true, raw: Number(WOB_RAW_REWARD_GLOBAL), reason: WOB_REWARD_REASON == null ? null : String(WOB_REWARD_REASON) })";

function startEpisodeScript(seed: number, episodeMs: number): string {
  return `(() => {
    Math.seedrandom(${JSON.stringify(String(seed))});
    core.EPISODE_MAX_TIME = ${episodeMs};
    core.startEpisodeReal();
    // The *-nl tasks wrap getUtterance: outside test mode it answers { utterance, fields }.
    const u = core.getUtterance();
    return typeof u === "string" ? u : String(u && u.utterance);
  })()`;
}

export interface EpisodeDeps {
  browser: SessionBrowser;
  provider: ProviderConfig;
  /** Wraps the model client (tests, traces); default: pi-ai through the provider config. */
  llm: () => LlmClient;
  signal?: AbortSignal;
}

export async function runEpisode(spec: EpisodeSpec, deps: EpisodeDeps): Promise<EpisodeResult> {
  const started = Date.now();
  const counting = new CountingLlm(deps.llm());
  const base = { task: spec.task, seed: spec.seed, tokens: counting.usage };
  let session: Awaited<ReturnType<SessionBrowser["openSession"]>> | undefined;
  const stop = new AbortController();
  const onOuterAbort = () => stop.abort(deps.signal?.reason);
  deps.signal?.addEventListener("abort", onOuterAbort, { once: true });
  let poll: ReturnType<typeof setInterval> | undefined;
  try {
    // A page that does not load ends this episode with its error, never the whole run.
    session = await deps.browser.openSession(spec.url);
    const client = session.port.client;
    const tabId = session.tabId;
    const utterance = await evaluate<string>(client, tabId, startEpisodeScript(spec.seed, spec.episodeMs));
    let reward: PageReward | undefined;
    const readReward = async (): Promise<PageReward | undefined> => {
      try {
        return await evaluate<PageReward>(client, tabId, READ_REWARD);
      } catch {
        return undefined; // mid-navigation: read again at the next tick
      }
    };
    poll = setInterval(() => {
      void readReward().then((r) => {
        if (r?.done && !reward) {
          reward = r;
          stop.abort(new Error("the episode ended"));
        }
      });
    }, REWARD_POLL_MS);
    const agent = assembleRunnerAgent({
      port: session.port,
      provider: deps.provider,
      llm: counting,
      maxSteps: spec.maxSteps,
    });
    const result = await agent.run(tabId, utterance, { mode: "act", signal: stop.signal });
    clearInterval(poll);
    poll = undefined;
    reward ??= await readReward();
    const ended = reward?.done
      ? (reward.reason ?? (reward.raw > 0 ? "success" : "wrong answer"))
      : `agent ${result.status}`;
    return {
      ...base,
      success: reward?.done === true && reward.raw > 0,
      reward: reward?.done ? reward.raw : 0,
      utterance,
      ended,
      steps: result.steps,
      ms: Date.now() - started,
    };
  } catch (error) {
    return {
      ...base,
      success: false,
      reward: 0,
      utterance: "",
      ended: "error",
      steps: 0,
      ms: Date.now() - started,
      error: error instanceof Error ? error.message : String(error),
    };
  } finally {
    if (poll) clearInterval(poll);
    deps.signal?.removeEventListener("abort", onOuterAbort);
    await session?.close();
  }
}
