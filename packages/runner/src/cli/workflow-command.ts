/**
 * `webbrain workflow save TRACE` and `webbrain workflow run FILE --param k=v`: saved workflows
 * and their replay without a model (@webbrain/agent's workflow-*.ts), in a Firefox we launch.
 *
 * Invariants: a replay that stops exits 1 with the step and the reason on stderr; Firefox is
 * closed however the replay ends (withRunnerSession).
 */
import { readFile, writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import {
  Agent,
  handoverTask,
  MemoryStore,
  PiAiClient,
  parseWorkflow,
  type ReplayResult,
  replayWorkflow,
  serializeWorkflow,
  type Workflow,
  WorkflowError,
  workflowFromTrace,
} from "@webbrain/agent";
import { EXIT_DONE, EXIT_NOT_FINISHED, type ExitCode, UsageError } from "../errors.js";
import { loadPageScript } from "../page-script-source.js";
import { ensureModelReachable, providerFromFlags } from "../provider-options.js";
import { withRunnerSession } from "../runner-session.js";
import { readTraceFile } from "../trace-writer.js";
import type { ParsedOptions } from "./argv-parser.js";
import type { CliIo } from "./cli-io.js";
import { browserOptionsFrom } from "./shared-options.js";
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
  const [action, file] = positionals;
  if (action === "save") return save(resolve(file!), options, io);
  if (action === "run") return run(resolve(file!), options, io);
  throw new UsageError(
    `Unknown workflow action "${action}"; use \`webbrain workflow save TRACE\` or \`webbrain workflow run FILE\`.`,
  );
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
  if (options.out) {
    await writeFile(resolve(options.out), text);
    const params =
      workflow.params.map((p) => `${p.name} (${JSON.stringify(p.default)})`).join(", ") || "none";
    io.stderr.write(
      `webbrain: saved ${workflow.steps.length} steps to ${options.out}; parameters: ${params}\n`,
    );
  } else io.stdout.write(text);
  return EXIT_DONE;
}

async function run(path: string, options: Options, io: CliIo): Promise<ExitCode> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new UsageError(`Cannot read the workflow ${path}: ${(error as Error).message}.`);
  }
  const workflow: Workflow = asUsage(() => parseWorkflow(text));
  const params = paramPairs(options.param);
  const startUrl = options.url ?? workflow.startUrl;
  // The model is checked before Firefox starts, as `run` does, so --handover fails fast.
  const provider = options.handover
    ? providerFromFlags(
        {
          ...(options.provider ? { provider: options.provider } : {}),
          ...(options["base-url"] ? { baseUrl: options["base-url"] } : {}),
          ...(options.model ? { model: options.model } : {}),
          ...(options["api-key-env"] ? { apiKeyEnv: options["api-key-env"] } : {}),
        },
        io.env,
      )
    : undefined;
  if (provider) await ensureModelReachable(provider);
  let handedOver: { status: string; text: string } | undefined;
  const result: ReplayResult = await withRunnerSession(
    {
      ...browserOptionsFrom(options),
      pageScript: loadPageScript,
      signal: io.signal,
      ...(startUrl ? { url: startUrl } : {}),
    },
    async ({ port, tabId }) => {
      const replay = () =>
        replayWorkflow(port, tabId, workflow, {
          params,
          startUrl: "",
          signal: io.signal,
          onStep: (index, step, outcome, detail) =>
            io.stderr.write(
              `webbrain: step ${index + 1}/${workflow.steps.length} ${step.tool} ${outcome}${detail ? `: ${detail}` : ""}\n`,
            ),
        });
      let replayed: ReplayResult;
      try {
        replayed = await replay();
      } catch (error) {
        if (error instanceof WorkflowError) throw new UsageError(error.message);
        throw error;
      }
      if (replayed.status === "stopped" && provider && replayed.step > 0) {
        io.stderr.write(`webbrain: the replay stopped at step ${replayed.step}; handing over to the agent\n`);
        const agent = new Agent({ port, store: new MemoryStore(), provider, llm: new PiAiClient(provider) });
        const outcome = await agent.processMessage(tabId, handoverTask(workflow, replayed, params), {
          mode: "act",
          signal: io.signal,
        });
        handedOver = { status: outcome.status, text: outcome.text };
      }
      return replayed;
    },
  );
  if (handedOver) {
    const finished = handedOver.status === "done" || handedOver.status === "answered";
    if (options.json) io.stdout.write(`${JSON.stringify({ ...result, handover: handedOver })}\n`);
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
  return EXIT_NOT_FINISHED;
}
