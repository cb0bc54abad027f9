/**
 * `webbrain bench miniwob`: MiniWoB++ episodes through the real agent loop (see
 * ../bench-miniwob/). The model endpoint is probed before Firefox starts; Firefox and the task
 * server are closed however the run ends.
 */
import { PiAiClient } from "@webbrain/agent";
import { formatTable, ProgressBar, summarize } from "../bench-miniwob/miniwob-report.js";
import { listMiniwobTasks, serveTasks } from "../bench-miniwob/miniwob-tasks.js";
import { runMiniwob } from "../bench-miniwob/run-miniwob.js";
import { SessionBrowser } from "../browser/isolated-sessions.js";
import { EXIT_DONE, type ExitCode, UsageError } from "../errors.js";
import { loadPageScript } from "../port/page-script-source.js";
import { ensureModelReachable, providerFromFlags, resolveVision } from "../run/provider-options.js";
import type { ParsedOptions } from "./argv-parser.js";
import { BENCH_SUITES, type benchCommand } from "./bench-specs.js";
import type { CliIo } from "./cli-io.js";
import { providerFlagsFrom } from "./shared-options.js";

type Options = ParsedOptions<typeof benchCommand.options>;

const DEFAULT_MAX_STEPS = 15;
const DEFAULT_EPISODE_SECONDS = 300;

export async function benchCommandHandler(
  positionals: string[],
  options: Options,
  io: CliIo,
): Promise<ExitCode> {
  const suite = positionals[0];
  if (!BENCH_SUITES.includes(suite as (typeof BENCH_SUITES)[number])) {
    throw new UsageError(`Unknown bench suite ${JSON.stringify(suite)}; suites: ${BENCH_SUITES.join(", ")}.`);
  }
  if (!options["tasks-dir"]) {
    throw new UsageError(
      "bench miniwob needs --tasks-dir DIR: MiniWoB++'s miniwob/html folder from a local clone.",
    );
  }
  const only = options.tasks
    ?.split(",")
    .map((t) => t.trim())
    .filter(Boolean);
  const tasks = await listMiniwobTasks(options["tasks-dir"], only);
  const flagged = providerFromFlags(providerFlagsFrom(options), io.env);
  await ensureModelReachable(flagged);
  const provider = await resolveVision(flagged, options.vision ?? "auto");
  const seeds = options.seeds ?? 1;
  const server = await serveTasks(options["tasks-dir"]);
  let browser: SessionBrowser | undefined;
  const bar = new ProgressBar(io.stderr, io.interactive, tasks.length * seeds);
  try {
    browser = await SessionBrowser.open({
      pageScript: loadPageScript,
      ...(options.headed ? { headed: true } : {}),
      ...(options.connect ? { connect: options.connect } : {}),
      ...(options.firefox ? { firefoxPath: options.firefox } : {}),
    });
    if (!options.json)
      io.stderr.write(
        `webbrain bench: ${tasks.length} MiniWoB++ tasks x ${seeds} seeds on ${browser.description}\n`,
      );
    const results = await runMiniwob(browser, server, {
      tasks,
      seeds,
      parallel: options.parallel ?? 1,
      maxSteps: options["max-steps"] ?? DEFAULT_MAX_STEPS,
      episodeMs: (options["episode-seconds"] ?? DEFAULT_EPISODE_SECONDS) * 1000,
      provider,
      llm: () => new PiAiClient(provider),
      signal: io.signal,
      onEpisode: (result) => bar.tick(result),
    });
    bar.stop();
    const summary = summarize(results, provider.model);
    if (options.json) io.stdout.write(`${JSON.stringify({ summary, episodes: results })}\n`);
    else io.stdout.write(`${formatTable(summary)}\n`);
    return EXIT_DONE;
  } finally {
    bar.stop();
    await browser?.close();
    await server.close();
  }
}
