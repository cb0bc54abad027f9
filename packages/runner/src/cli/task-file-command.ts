/**
 * `webbrain run --tasks FILE [--parallel N]`: the tasks of a file, N at a time in one Firefox,
 * each in its own user context. One JSON line per task on stdout as it finishes, a summary line
 * on stderr at the end.
 *
 * Invariants:
 * - The model endpoint is probed and the file read before Firefox starts.
 * - Exit 0 when every task finished (done/answered), 1 otherwise.
 */
import { resolve } from "node:path";
import {
  type MessagingRoute,
  PiAiClient,
  type ProviderConfig,
  type RunStatus,
  type SkillDefinition,
} from "@webbrain/agent";
import type { Mode } from "@webbrain/protocol";
import { SessionBrowser } from "../browser/isolated-sessions.js";
import { EXIT_DONE, EXIT_NOT_FINISHED, type ExitCode, UsageError } from "../errors.js";
import { loadPageScript } from "../port/page-script-source.js";
import type { SkillNetwork } from "../run/offline-wikipedia-file.js";
import { ensureModelReachable, providerFromFlags, resolveVision } from "../run/provider-options.js";
import { loadSkillFiles } from "../run/skill-files.js";
import { readTaskFile, runTaskPool, type TaskLine } from "../run/task-file.js";
import type { ParsedOptions } from "./argv-parser.js";
import type { CliIo } from "./cli-io.js";
import type { runCommand } from "./command-specs.js";
import {
  browserOptionsFrom,
  messagingRoutesFrom,
  providerFlagsFrom,
  skillNetworkFrom,
} from "./shared-options.js";

type Options = ParsedOptions<typeof runCommand.options>;

const FINISHED: ReadonlySet<RunStatus | "failed"> = new Set(["done", "answered"]);

export async function runTaskFileCommand(
  positionals: string[],
  options: Options,
  io: CliIo,
): Promise<ExitCode> {
  if (positionals.length > 0) {
    throw new UsageError("Give either a task or --tasks FILE, not both.");
  }
  if (options.plan || options.confirm || options.trace || options["trace-shots"] || options.url) {
    throw new UsageError(
      "--tasks runs without a person or a trace: drop --plan, --confirm, --trace, --trace-shots and --url (put urls in the file).",
    );
  }
  const tasks = await readTaskFile(resolve(options.tasks!));
  // Every task's skills are read and checked before Firefox starts: a bad one is a usage error.
  const skills = await Promise.all(
    tasks.map((task) => loadSkillFiles([...(options.skill ?? []), ...(task.skills ?? [])])),
  );
  const routes = messagingRoutesFrom(options["messaging-route"]);
  const mode = options.mode ?? "act";
  const flagged = providerFromFlags(providerFlagsFrom(options), io.env);
  // One archive serves every task (--zim): checked before the model is asked or Firefox starts.
  const network = await skillNetworkFrom(options, skills.flat());
  let outcomes: Awaited<ReturnType<typeof runTaskPool>>;
  const parallel = options.parallel ?? 1;
  const started = Date.now();
  try {
    outcomes = await runPool(options, io, { tasks, skills, routes, mode, flagged, network, parallel });
  } finally {
    await network.close();
  }
  const finished = outcomes.filter((outcome) => FINISHED.has(outcome.status)).length;
  const seconds = (Date.now() - started) / 1000;
  io.stderr.write(
    `webbrain: ${finished}/${tasks.length} tasks finished in ${seconds.toFixed(1)} s (${((tasks.length / seconds) * 60).toFixed(1)} tasks/min, ${parallel} parallel)\n`,
  );
  return finished === tasks.length ? EXIT_DONE : EXIT_NOT_FINISHED;
}

async function runPool(
  options: Options,
  io: CliIo,
  run: {
    tasks: TaskLine[];
    skills: SkillDefinition[][];
    routes: MessagingRoute[];
    mode: Mode;
    flagged: ProviderConfig;
    network: SkillNetwork;
    parallel: number;
  },
): Promise<Awaited<ReturnType<typeof runTaskPool>>> {
  const { tasks, skills, routes, mode, flagged, network, parallel } = run;
  await ensureModelReachable(flagged);
  const provider = await resolveVision(flagged, options.vision ?? "auto");
  const browser = await SessionBrowser.open({ ...browserOptionsFrom(options), pageScript: loadPageScript });
  try {
    io.stderr.write(`webbrain: ${tasks.length} tasks, ${parallel} at a time; ${browser.description}\n`);
    return await runTaskPool({
      browser,
      tasks,
      parallel,
      mode,
      provider,
      skills,
      skillHttp: network.http,
      messagingRoutes: routes,
      llm: () => new PiAiClient(provider),
      ...(options["max-steps"] ? { maxSteps: options["max-steps"] } : {}),
      signal: io.signal,
      onOutcome: (outcome) => io.stdout.write(`${JSON.stringify(outcome)}\n`),
    });
  } finally {
    await browser.close();
  }
}
