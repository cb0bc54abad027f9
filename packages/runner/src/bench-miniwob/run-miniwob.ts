/**
 * Runs MiniWoB++ episodes (tasks x seeds) N at a time, each in its own user context of one
 * Firefox, and collects their results in task, then seed order.
 */
import type { LlmClient, ProviderConfig } from "@webbrain/agent";
import type { SessionBrowser } from "../browser/isolated-sessions.js";
import { type EpisodeResult, runEpisode } from "./miniwob-episode.js";
import type { TaskServer } from "./miniwob-tasks.js";

export interface MiniwobRunOptions {
  tasks: readonly string[];
  seeds: number;
  parallel: number;
  maxSteps: number;
  episodeMs: number;
  provider: ProviderConfig;
  llm: () => LlmClient;
  signal?: AbortSignal;
  onEpisode?: (result: EpisodeResult) => void;
}

export async function runMiniwob(
  browser: SessionBrowser,
  server: TaskServer,
  options: MiniwobRunOptions,
): Promise<EpisodeResult[]> {
  const queue = options.tasks.flatMap((task) =>
    Array.from({ length: options.seeds }, (_, seed) => ({ task, seed })),
  );
  const results: EpisodeResult[] = new Array(queue.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < queue.length && !options.signal?.aborted) {
      const index = next++;
      const item = queue[index]!;
      const result = await runEpisode(
        { ...item, url: server.taskUrl(item.task), maxSteps: options.maxSteps, episodeMs: options.episodeMs },
        {
          browser,
          provider: options.provider,
          llm: options.llm,
          ...(options.signal ? { signal: options.signal } : {}),
        },
      );
      results[index] = result;
      options.onEpisode?.(result);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.parallel, queue.length)) }, worker));
  return results.filter((r) => r !== undefined);
}
