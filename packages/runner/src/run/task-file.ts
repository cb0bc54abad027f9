/**
 * Task files for `webbrain run --tasks FILE --parallel N`: many tasks, N at a time, each in its
 * own BiDi user context of one Firefox (isolated-sessions.ts), so they share a browser process
 * but no cookies, storage or tabs.
 *
 * File format: JSON lines, one task per line,
 * `{"task": "...", "url": "https://...", "skills": ["lookup.md"]}` (`url` and `skills` optional;
 * skill paths are relative to the task file's folder and add to `--skill`); blank lines and
 * lines starting with `#` are skipped.
 *
 * Invariants:
 * - A bad line is a UsageError naming the line, before any browser starts.
 * - One task's failure (the model gives up, the page breaks) is that task's result; the others
 *   go on. Only the browser dying ends the whole run.
 * - Results come back in file order whatever order the tasks finish in.
 */

import { readFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import type {
  LlmClient,
  MessagingRoute,
  ProviderConfig,
  RunStatus,
  SkillDefinition,
  SkillHttp,
} from "@webbrain/agent";
import type { Mode } from "@webbrain/protocol";
import type { SessionBrowser } from "../browser/isolated-sessions.js";
import { UsageError } from "../errors.js";
import { assembleRunnerAgent } from "./agent-assembly.js";

export interface TaskLine {
  task: string;
  url?: string;
  /** Skill files for this task only (absolute paths once read). */
  skills?: string[];
}

export interface TaskOutcome {
  /** 1-based position in the file. */
  index: number;
  task: string;
  status: RunStatus | "failed";
  summary: string;
  steps: number;
  toolCalls: number;
  durationMs: number;
}

export async function readTaskFile(file: string): Promise<TaskLine[]> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new UsageError(`Cannot read the task file ${file}: ${(error as Error).message}.`);
  }
  const tasks: TaskLine[] = [];
  text.split("\n").forEach((raw, index) => {
    const line = raw.trim();
    if (!line || line.startsWith("#")) return;
    const where = `${file} line ${index + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw new UsageError(
        `${where} is not JSON (${(error as Error).message}); write {"task": "...", "url": "..."}.`,
      );
    }
    const record = (typeof value === "object" && value !== null ? value : {}) as Record<string, unknown>;
    if (typeof record.task !== "string" || !record.task.trim()) {
      throw new UsageError(`${where} has no "task"; write {"task": "...", "url": "..."}.`);
    }
    if (record.url !== undefined && typeof record.url !== "string") {
      throw new UsageError(`${where}: "url" must be a string.`);
    }
    const skills = record.skills;
    if (
      skills !== undefined &&
      !(Array.isArray(skills) && skills.every((path) => typeof path === "string"))
    ) {
      throw new UsageError(`${where}: "skills" must be a list of skill file paths, e.g. ["lookup.md"].`);
    }
    tasks.push({
      task: record.task.trim(),
      ...(record.url ? { url: record.url } : {}),
      ...(skills && skills.length > 0 ? { skills: skills.map((path) => resolve(dirname(file), path)) } : {}),
    });
  });
  if (tasks.length === 0) throw new UsageError(`The task file ${file} has no tasks.`);
  return tasks;
}

export interface TaskPoolOptions {
  browser: SessionBrowser;
  tasks: readonly TaskLine[];
  parallel: number;
  mode: Mode;
  provider: ProviderConfig;
  /** A model client per task (each counts its own tokens). */
  llm: () => LlmClient;
  maxSteps?: number;
  signal: AbortSignal;
  /** The recipient guard's protected routes (default: the built-in ones). */
  messagingRoutes?: readonly MessagingRoute[];
  /** Each task's skills, by its position in `tasks` (`--skill` files plus the line's own). */
  skills?: readonly (readonly SkillDefinition[])[];
  /** How skill tools reach the network (`--zim`: Wikipedia's offline fallback). */
  skillHttp?: SkillHttp;
  /** Called as each task finishes (progress, streaming output). */
  onOutcome?: (outcome: TaskOutcome) => void;
}

export async function runTaskPool(options: TaskPoolOptions): Promise<TaskOutcome[]> {
  const outcomes: TaskOutcome[] = new Array(options.tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < options.tasks.length && !options.signal.aborted) {
      const index = next++;
      const outcome = await runOne(options, index);
      outcomes[index] = outcome;
      options.onOutcome?.(outcome);
    }
  };
  const workers = Array.from({ length: Math.min(options.parallel, options.tasks.length) }, worker);
  await Promise.race([Promise.all(workers), options.browser.lost.then((reason) => Promise.reject(reason))]);
  return outcomes.filter(Boolean);
}

async function runOne(options: TaskPoolOptions, index: number): Promise<TaskOutcome> {
  const line = options.tasks[index]!;
  const started = Date.now();
  let toolCalls = 0;
  try {
    const session = await options.browser.openSession(line.url);
    try {
      const agent = assembleRunnerAgent({
        port: session.port,
        provider: options.provider,
        llm: options.llm(),
        // Recipient guard, as in `webbrain run`: a send on a protected messaging route needs the
        // recipient a plan took from the task's own words; a task file has no plan, so it is refused.
        recipientGuard: { routes: options.messagingRoutes },
        maxSteps: options.maxSteps,
        skills: options.skills?.[index],
        skillHttp: options.skillHttp,
      });
      const result = await agent.run(session.tabId, line.task, {
        mode: options.mode,
        signal: options.signal,
        onEvent: (event) => {
          if (event.type === "tool_call") toolCalls++;
        },
      });
      return {
        index: index + 1,
        task: line.task,
        status: result.status,
        summary: result.text,
        steps: result.steps,
        toolCalls,
        durationMs: Date.now() - started,
      };
    } finally {
      await session.close();
    }
  } catch (error) {
    return {
      index: index + 1,
      task: line.task,
      status: "failed",
      summary: (error as Error).message,
      steps: 0,
      toolCalls,
      durationMs: Date.now() - started,
    };
  }
}
