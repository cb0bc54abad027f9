/**
 * What `webbrain bench miniwob` prints: per task its success rate over the seeds, mean steps,
 * tokens and time; the overall rate beside the published reference; a progress bar on a
 * terminal; `--json` for scripts.
 */
import type { EpisodeResult } from "./miniwob-episode.js";

/** BrowserGym's GenericAgent with an accessibility tree, Claude-3.5-Sonnet, 125 MiniWoB++ tasks. */
export const PUBLISHED_REFERENCE = {
  label: "BrowserGym GenericAgent (AXTree), Claude-3.5-Sonnet, 125 tasks",
  successRate: 0.698,
} as const;

export interface TaskSummary {
  task: string;
  episodes: number;
  successes: number;
  successRate: number;
  meanSteps: number;
  meanTokens: number;
  meanSeconds: number;
  /** Why failed episodes ended (the page's reason or the agent's status), once each. */
  failures: string[];
}

export interface BenchSummary {
  tasks: TaskSummary[];
  episodes: number;
  successes: number;
  successRate: number;
  /** Mean of the per-task rates (the way MiniWoB++ results are usually reported). */
  meanTaskSuccessRate: number;
  reference: typeof PUBLISHED_REFERENCE;
  model: string;
}

const mean = (values: number[]): number =>
  values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length;

export function summarize(results: readonly EpisodeResult[], model: string): BenchSummary {
  const byTask = new Map<string, EpisodeResult[]>();
  for (const r of results) byTask.set(r.task, [...(byTask.get(r.task) ?? []), r]);
  const tasks: TaskSummary[] = [...byTask.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([task, episodes]) => {
      const successes = episodes.filter((e) => e.success).length;
      return {
        task,
        episodes: episodes.length,
        successes,
        successRate: successes / episodes.length,
        meanSteps: mean(episodes.map((e) => e.steps)),
        meanTokens: mean(episodes.map((e) => e.tokens.input + e.tokens.output)),
        meanSeconds: mean(episodes.map((e) => e.ms / 1000)),
        failures: [...new Set(episodes.filter((e) => !e.success).map((e) => e.error ?? e.ended))],
      };
    });
  const successes = results.filter((r) => r.success).length;
  return {
    tasks,
    episodes: results.length,
    successes,
    successRate: results.length === 0 ? 0 : successes / results.length,
    meanTaskSuccessRate: mean(tasks.map((t) => t.successRate)),
    reference: PUBLISHED_REFERENCE,
    model,
  };
}

const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;

export function formatTable(summary: BenchSummary): string {
  const header = ["task", "success", "steps", "tokens", "seconds", "failed because"];
  const rows = summary.tasks.map((t) => [
    t.task,
    `${t.successes}/${t.episodes}`,
    t.meanSteps.toFixed(1),
    Math.round(t.meanTokens).toString(),
    t.meanSeconds.toFixed(1),
    t.failures.join("; ").slice(0, 60),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]?.length ?? 0)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join("  ")
      .trimEnd();
  return [
    line(header),
    ...rows.map(line),
    "",
    `overall: ${summary.successes}/${summary.episodes} episodes (${pct(summary.successRate)}), mean over tasks ${pct(summary.meanTaskSuccessRate)}, model ${summary.model}`,
    `published reference: ${pct(summary.reference.successRate)} (${summary.reference.label})`,
  ].join("\n");
}

/** A one-line bar redrawn in place on a terminal; silent elsewhere. */
export class ProgressBar {
  readonly #out: NodeJS.WritableStream;
  readonly #tty: boolean;
  readonly #total: number;
  #done = 0;
  #ok = 0;

  constructor(out: NodeJS.WritableStream, tty: boolean, total: number) {
    this.#out = out;
    this.#tty = tty;
    this.#total = total;
  }

  tick(result: EpisodeResult): void {
    this.#done++;
    if (result.success) this.#ok++;
    if (!this.#tty) return;
    const width = 30;
    const filled = Math.round((width * this.#done) / Math.max(1, this.#total));
    this.#out.write(
      `\r[${"#".repeat(filled)}${".".repeat(width - filled)}] ${this.#done}/${this.#total} episodes, ${this.#ok} solved, last ${result.task} ${result.success ? "ok" : "failed"}\x1b[K`,
    );
  }

  stop(): void {
    if (this.#tty && this.#done > 0) this.#out.write("\n");
  }
}
