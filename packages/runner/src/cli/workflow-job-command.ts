/**
 * `webbrain run --job FILE` for a workflow job (job file version 2, kind "workflow"): the
 * embedded workflow replays through the same path as `webbrain workflow run` (replayInSession),
 * the agent finishes a stopped replay only when the job says `handover`, and the outcome is one
 * line on stdout (or `--json`): replayed, repaired or failed, with the step.
 *
 * Invariants:
 * - The embedded workflow is data like any workflow file: it runs only once approved (its exact
 *   text saved or approved by this webbrain, else shown and approved on a terminal or with
 *   `--approve`), and every step goes through the executor's gates in Act mode.
 * - A repair's next version is written into the job file itself (0600, whole), so the next run
 *   of the same file replays it with no model; its text is approved as saved.
 * - Exit 0 when the job's work was done (replayed, repaired), 1 when it failed.
 */
import {
  type JobFile,
  protectedDispatchStep,
  resolveParams,
  serializeWorkflow,
  type WorkflowError,
  type WorkflowJobFileEntry,
} from "@webbrain/agent";
import { EXIT_DONE, EXIT_NOT_FINISHED, type ExitCode, UsageError } from "../errors.js";
import { writePrivateFile } from "../run/private-file.js";
import { ensureModelReachable, providerFromFlags, resolveVision } from "../run/provider-options.js";
import { WorkflowApprovals } from "../run/workflow-approvals.js";
import { replayInSession } from "../run/workflow-replay-session.js";
import type { ParsedOptions } from "./argv-parser.js";
import type { CliIo } from "./cli-io.js";
import type { runCommand } from "./command-specs.js";
import { browserOptionsFrom, messagingRoutesFrom, providerFlagsFrom } from "./shared-options.js";
import { askSecrets, ensureApproved } from "./workflow-command.js";

type Options = ParsedOptions<typeof runCommand.options>;

/** `run` flags that shape an agent's task, which a replay does not have: refused, never ignored. */
const TASK_ONLY_FLAGS = [
  "plan",
  "include",
  "skill",
  "zim",
  "trace",
  "trace-shots",
  "allow-pause",
  "api-observer",
] as const;

/** What `--json` prints for a workflow job (public: scripts parse it). */
export interface WorkflowJobSummary {
  kind: "workflow";
  status: "completed" | "failed";
  outcome: "replayed" | "repaired" | "failed";
  step?: number;
  description?: string;
  version?: number;
  text: string;
}

export async function runWorkflowJobFile(
  path: string,
  file: JobFile & { job: WorkflowJobFileEntry },
  options: Options,
  io: CliIo,
): Promise<ExitCode> {
  const given = TASK_ONLY_FLAGS.find((flag) => options[flag] !== undefined && options[flag] !== false);
  if (given) {
    throw new UsageError(
      `--${given} is for a task; ${path} is a workflow job, which replays its steps (in Act mode).`,
    );
  }
  if (options.mode !== undefined && options.mode !== "act") {
    throw new UsageError(`${path} is a workflow job: it replays in Act mode, never ${options.mode}.`);
  }
  const { job } = file;
  const { workflow } = job;
  const params = { ...job.params };
  const routes = messagingRoutesFrom(options["messaging-route"]);
  const blocked = protectedDispatchStep(workflow, routes);
  if (blocked) {
    io.stderr.write(`webbrain: not run: ${blocked.reason}\n`);
    return EXIT_NOT_FINISHED;
  }
  if (options.confirm && !io.interactive) {
    throw new UsageError("--confirm asks questions on the terminal; run it in a terminal, or drop it.");
  }
  const startUrl = options.url ?? job.url ?? workflow.startUrl;
  const text = serializeWorkflow(workflow);
  if (!(await ensureApproved(path, text, workflow, { url: startUrl, approve: options.approve }, io))) {
    io.stderr.write("webbrain: not run: the steps were not approved.\n");
    return EXIT_NOT_FINISHED;
  }
  await askSecrets(workflow, params, io);
  try {
    resolveParams(workflow, params);
  } catch (error) {
    throw new UsageError(`--job ${path}: ${(error as WorkflowError).message}`);
  }
  const provider = job.handover ? providerFromFlags(providerFlagsFrom(options), io.env) : undefined;
  if (provider) await ensureModelReachable(provider);
  const model = provider ? await resolveVision(provider, options.vision ?? "auto") : undefined;
  const run = await replayInSession(
    {
      workflow,
      params,
      startUrl,
      routes,
      browser: browserOptionsFrom(options),
      confirm: options.confirm === true,
      ...(model ? { model } : {}),
    },
    io,
  );
  if (run.repaired) {
    const repairedText = serializeWorkflow(run.repaired);
    await writePrivateFile(
      path,
      `${JSON.stringify({ ...file, job: { ...job, workflow: run.repaired } }, null, 2)}\n`,
    );
    await new WorkflowApprovals(io.env).approve(repairedText, "saved", path);
    io.stderr.write(`webbrain: saved version ${run.report.version} of the workflow into ${path}\n`);
  }
  const summary: WorkflowJobSummary = {
    kind: "workflow",
    status: run.status === "completed" ? "completed" : "failed",
    ...run.report,
    text: run.text,
  };
  io.stdout.write(options.json ? `${JSON.stringify(summary)}\n` : `${run.text}\n`);
  return summary.status === "completed" ? EXIT_DONE : EXIT_NOT_FINISHED;
}
