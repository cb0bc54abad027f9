/**
 * `webbrain workflow save TRACE`, `webbrain workflow run FILE --param k=v` and `webbrain workflow
 * diff A B`: saved workflows, their replay without a model and their versions (@webbrain/agent's
 * workflow-*.ts), in a Firefox we launch.
 *
 * Invariants:
 * - A replay that stops exits 1 with the step and the reason on stderr; Firefox is closed
 *   however the replay ends (withRunnerSession).
 * - A file this runner did not save (workflow-approvals.ts) runs only once the user approved
 *   its steps: asked on a terminal, else `--approve`. Approved or not, every step goes through
 *   the executor's gates in Act mode (`--confirm` asks before gated actions, as `run` does).
 * - A secret parameter is never saved nor printed: `save` names it, `run` asks for it (without
 *   echo on a terminal) unless `--param` gives it. Saved files are 0600, written whole.
 * - `run --handover`: when the agent finishes a stopped replay, its steps become the file's next
 *   version (workflow-repair.ts), written in place with the old versions kept inside and the new
 *   text approved as saved; a step a repair wrote that fails again is reported, the file left as
 *   it was.
 */
import { readFile, stat } from "node:fs/promises";
import { resolve } from "node:path";
import {
  describeSteps,
  diffWorkflows,
  formatWorkflowDiff,
  missingSecrets,
  parseWorkflow,
  protectedDispatchStep,
  type RepairOutcome,
  resolveParams,
  serializeWorkflow,
  type Workflow,
  WorkflowError,
  workflowAtVersion,
  workflowFromTrace,
  workflowVersionNumber,
} from "@webbrain/agent";
import { EXIT_DONE, EXIT_NOT_FINISHED, type ExitCode, UsageError } from "../errors.js";
import { writePrivateFile } from "../run/private-file.js";
import { ensureModelReachable, providerFromFlags, resolveVision } from "../run/provider-options.js";
import { askHidden, askYesNo } from "../run/terminal-prompts.js";
import { readTraceFile } from "../run/trace-writer.js";
import { WorkflowApprovals } from "../run/workflow-approvals.js";
import { replayInSession } from "../run/workflow-replay-session.js";
import type { ParsedOptions } from "./argv-parser.js";
import type { CliIo } from "./cli-io.js";
import { browserOptionsFrom, messagingRoutesFrom, providerFlagsFrom } from "./shared-options.js";
import type { workflowCommand } from "./workflow-specs.js";

type Options = ParsedOptions<typeof workflowCommand.options>;

/** `--param a=1 --param b=2` as {a: "1", b: "2"}. */
export function paramPairs(values: readonly string[] | undefined): Record<string, string> {
  const pairs: Record<string, string> = {};
  for (const value of values ?? []) {
    const eq = value.indexOf("=");
    if (eq <= 0) throw new UsageError(`--param needs NAME=VALUE (got "${value}").`);
    pairs[value.slice(0, eq)] = value.slice(eq + 1);
  }
  return pairs;
}

/** A saved workflow's parameters for the person: each default, a secret as asked at each replay. */
export function paramsLine(workflow: Workflow): string {
  return (
    workflow.params
      .map((p) =>
        p.secret ? `${p.name} (secret: asked at each replay)` : `${p.name} (${JSON.stringify(p.default)})`,
      )
      .join(", ") || "none"
  );
}

function asUsage<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (error instanceof WorkflowError) throw new UsageError(error.message);
    throw error;
  }
}

export async function workflowCommandHandler(
  positionals: string[],
  options: Options,
  io: CliIo,
): Promise<ExitCode> {
  const [action, file, other] = positionals;
  if (other !== undefined && action !== "diff") {
    throw new UsageError(`\`webbrain workflow ${action}\` takes one file (got also "${other}").`);
  }
  if (action === "save") return save(resolve(file!), options, io);
  if (action === "run") return run(resolve(file!), options, io);
  if (action === "diff") return diff(file!, other, options, io);
  throw new UsageError(
    `Unknown workflow action "${action}"; use \`webbrain workflow save TRACE\`, \`webbrain workflow run FILE\` or \`webbrain workflow diff A B\`.`,
  );
}

async function readWorkflowFile(path: string): Promise<{ text: string; workflow: Workflow }> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new UsageError(`Cannot read the workflow ${path}: ${(error as Error).message}.`);
  }
  return { text, workflow: asUsage(() => parseWorkflow(text)) };
}

/** A diff side: FILE (its current version) or FILE@N (version N kept in it). */
async function versionAt(spec: string): Promise<{ label: string; workflow: Workflow }> {
  const at = /^(.*)@(\d+)$/.exec(spec);
  const exists = await stat(resolve(spec)).then(
    () => true,
    () => false,
  );
  if (!at || exists) {
    const { workflow } = await readWorkflowFile(resolve(spec));
    return { label: `${spec}@${workflowVersionNumber(workflow)}`, workflow };
  }
  const { workflow } = await readWorkflowFile(resolve(at[1]!));
  return { label: spec, workflow: asUsage(() => workflowAtVersion(workflow, Number(at[2]))) };
}

/**
 * `diff A B`: the steps (and parameters) that differ. `diff FILE` alone compares its previous
 * version with its current one. Exit 0 when they are the same, 1 when they differ, as diff(1).
 */
async function diff(
  first: string,
  second: string | undefined,
  options: Options,
  io: CliIo,
): Promise<ExitCode> {
  let a: { label: string; workflow: Workflow };
  let b: { label: string; workflow: Workflow };
  if (second === undefined) {
    b = await versionAt(first);
    const current = workflowVersionNumber(b.workflow);
    if (current < 2) {
      throw new UsageError(
        `${first} has only version 1 (no repair saved a newer one); give two files or versions: \`webbrain workflow diff A B\`.`,
      );
    }
    a = await versionAt(`${first.replace(/@\d+$/, "")}@${current - 1}`);
  } else {
    a = await versionAt(first);
    b = await versionAt(second);
  }
  const changes = diffWorkflows(a.workflow, b.workflow);
  if (options.json) {
    io.stdout.write(`${JSON.stringify({ from: a.label, to: b.label, ...changes })}\n`);
  } else {
    const repair = b.workflow.repair;
    io.stdout.write(
      [
        `--- ${a.label}`,
        `+++ ${b.label}${repair ? ` (repaired from step ${repair.step}: ${repair.reason})` : ""}`,
        ...formatWorkflowDiff(changes),
        "",
      ].join("\n"),
    );
  }
  return changes.same ? EXIT_DONE : EXIT_NOT_FINISHED;
}

async function save(tracePath: string, options: Options, io: CliIo): Promise<ExitCode> {
  const records = await readTraceFile(tracePath);
  const workflow = asUsage(() =>
    workflowFromTrace(records, {
      paramNames: paramPairs(options.param),
      ...(options.name ? { name: options.name } : {}),
    }),
  );
  const text = serializeWorkflow(workflow);
  // What this runner saved it may run without asking again (the exact text, by its hash).
  const approvals = new WorkflowApprovals(io.env);
  if (options.out) {
    const out = resolve(options.out);
    await writePrivateFile(out, text);
    await approvals.approve(text, "saved", out);
    io.stderr.write(
      `webbrain: saved ${workflow.steps.length} steps to ${options.out}; parameters: ${paramsLine(workflow)}\n`,
    );
  } else {
    await approvals.approve(text, "saved", "(stdout)");
    io.stdout.write(text);
  }
  return EXIT_DONE;
}

/**
 * Runs only a file the user approved: saved by this runner (its hash is known), or shown here
 * and approved now (on a terminal, or by --approve). Answers false when the user said no.
 */
export async function ensureApproved(
  path: string,
  text: string,
  workflow: Workflow,
  options: { url?: string; approve?: boolean },
  io: CliIo,
): Promise<boolean> {
  const approvals = new WorkflowApprovals(io.env);
  if (await approvals.isApproved(text)) return true;
  const steps = describeSteps(workflow).map((line) => `  ${line}`);
  const shown = [
    `webbrain: ${path} was not saved by this webbrain. Its ${workflow.steps.length} steps:`,
    ...steps,
    `  start page: ${options.url ?? (workflow.startUrl || "(the current page)")}`,
    "",
  ].join("\n");
  if (options.approve) {
    io.stderr.write(shown);
    await approvals.approve(text, "approved", path);
    return true;
  }
  if (!io.interactive) {
    io.stderr.write(shown);
    throw new UsageError(
      `${path} has not been approved: read its steps above, then run it again with --approve (or on a terminal, to be asked).`,
    );
  }
  io.stderr.write(shown);
  if (!(await askYesNo(io.stdin, io.stderr, "Run these steps? [y/N] "))) return false;
  await approvals.approve(text, "approved", path);
  return true;
}

/** Values for the secret parameters --param did not give: asked on a terminal, never echoed. */
export async function askSecrets(
  workflow: Workflow,
  params: Record<string, string>,
  io: CliIo,
): Promise<void> {
  const missing = missingSecrets(workflow, params);
  if (missing.length === 0) return;
  if (!io.interactive) {
    const names = missing.map((p) => p.name).join(", ");
    throw new UsageError(
      `The workflow needs the secret parameter ${names}, which is never saved: run it on a terminal to be asked (nothing is shown), or give --param ${missing[0]!.name}=VALUE.`,
    );
  }
  for (const param of missing) {
    try {
      params[param.name] = await askHidden(
        io.stdin,
        io.stderr,
        `${param.name} (secret, for "${param.field}"): `,
      );
    } catch {
      throw new UsageError(`No value was given for the secret parameter ${param.name}.`);
    }
  }
}

async function run(path: string, options: Options, io: CliIo): Promise<ExitCode> {
  const { text, workflow } = await readWorkflowFile(path);
  const params = paramPairs(options.param);
  // Checked before anything runs: a bad line is a usage error, never a route silently dropped.
  const routes = messagingRoutesFrom(options["messaging-route"]);
  const blocked = protectedDispatchStep(workflow, routes);
  if (blocked) {
    if (options.json) io.stdout.write(`${JSON.stringify({ status: "stopped", ...blocked, completed: 0 })}\n`);
    io.stderr.write(`webbrain: not run: ${blocked.reason}\n`);
    return EXIT_NOT_FINISHED;
  }
  if (options.confirm && !io.interactive) {
    throw new UsageError("--confirm asks questions on the terminal; run it in a terminal, or drop it.");
  }
  if (!(await ensureApproved(path, text, workflow, options, io))) {
    io.stderr.write("webbrain: not run: the steps were not approved.\n");
    return EXIT_NOT_FINISHED;
  }
  await askSecrets(workflow, params, io);
  // Values that do not fit the workflow are a usage error before Firefox starts.
  asUsage(() => resolveParams(workflow, params));
  // The model is checked before Firefox starts, as `run` does, so --handover fails fast.
  const provider = options.handover ? providerFromFlags(providerFlagsFrom(options), io.env) : undefined;
  if (provider) await ensureModelReachable(provider);
  const model = provider ? await resolveVision(provider, options.vision ?? "auto") : undefined;
  const replayed = await replayInSession(
    {
      workflow,
      params,
      startUrl: options.url ?? workflow.startUrl ?? "",
      routes,
      browser: browserOptionsFrom(options),
      confirm: options.confirm === true,
      ...(model ? { model } : {}),
    },
    io,
  );
  const { replay: result, handover: handedOver, repair } = replayed;
  if (!result) throw new UsageError(replayed.text);
  if (handedOver) {
    const finished = handedOver.status === "done" || handedOver.status === "answered";
    const saved = finished && repair ? await saveRepair(path, repair, io) : undefined;
    if (options.json)
      io.stdout.write(
        `${JSON.stringify({ ...result, handover: handedOver, ...(saved ? { repair: saved } : {}) })}\n`,
      );
    else if (finished) io.stdout.write(`${handedOver.text}\n`);
    if (!finished)
      io.stderr.write(`webbrain: the agent did not finish (${handedOver.status}): ${handedOver.text}\n`);
    return finished ? EXIT_DONE : EXIT_NOT_FINISHED;
  }
  if (options.json) io.stdout.write(`${JSON.stringify(result)}\n`);
  if (result.status === "done") {
    if (!options.json) io.stdout.write(`Replayed ${result.steps} steps of "${workflow.name}".\n`);
    return EXIT_DONE;
  }
  io.stderr.write(`webbrain: the replay stopped at step ${result.step}: ${result.reason}\n`);
  if (result.status === "stopped" && result.repairedIn !== undefined) {
    io.stderr.write(
      `webbrain: step ${result.step} was written by the repair in version ${result.repairedIn} and fails again: check the page, then record the workflow anew\n`,
    );
  }
  return EXIT_NOT_FINISHED;
}

/** What `--json` says of a repair: the version saved, or why none was. */
type RepairReport =
  | { saved: true; version: number; step: number; replaced: number; written: number }
  | { saved: false; step: number; reason: string };

/** Writes a repaired workflow over `path` (its old versions inside) and approves the new text. */
async function saveRepair(path: string, repair: RepairOutcome, io: CliIo): Promise<RepairReport> {
  if (!repair.saved) {
    io.stderr.write(`webbrain: the repair was not saved: ${repair.reason}\n`);
    return repair;
  }
  const text = serializeWorkflow(repair.workflow);
  await writePrivateFile(path, text);
  await new WorkflowApprovals(io.env).approve(text, "saved", path);
  io.stderr.write(
    `webbrain: saved version ${repair.version} of ${path}: steps ${repair.step}-${repair.step + repair.written - 1} are the agent's (${repair.replaced} recorded steps replaced; \`webbrain workflow diff ${path}\` shows the change)\n`,
  );
  const { workflow: _workflow, ...report } = repair;
  return report;
}
