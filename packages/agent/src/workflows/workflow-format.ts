/**
 * Saved workflows: a finished run's actions as a file that replays without a model, the same
 * file in the add-on and the runner.
 *
 * Format, version 3 (JSON, `webbrainWorkflow: 3`; version 1 and 2 files still load):
 *   { webbrainWorkflow: 3, name, goal?, createdAt, fromRun, startUrl,
 *     params: [{name, default, field, secret?}],   inputs; values typed in the run
 *     steps: [{tool, args, target?, url, expect?, repaired?}],
 *     version?, repair?: {step, reason, fromRun}, previous?: [{version, createdAt, fromRun,
 *     params, steps, repair?}] }
 * Version 2 added `secret: true` params: a value typed into a password field (or one the page
 * marks as secret) is never stored; its `default` is "" and a replay must be given the value.
 * Version 3 added revisions (workflow-repair.ts): `version` counts them (absent: 1); a replay
 * that stopped and was finished by the agent becomes the next version, whose steps from the
 * stop on are the agent's (`repaired`: the version that wrote them) and whose `repair` says
 * where and why; the versions before it stay in `previous`, oldest first.
 * A step that acted on a ref has no ref in `args`: `target` (role, name, the areas around it)
 * says what it was, and replay finds it again. Typed values are `{{param}}` placeholders.
 * `expect` is the effect the step had when recorded: `value` typed, `changed` (a click changed
 * something), `urlChanged` (it navigated).
 */
import type { TargetDescriptor } from "./workflow-target.js";

export const WORKFLOW_FORMAT_VERSION = 3;

export interface WorkflowParam {
  name: string;
  /** The value typed when the run was recorded ("" for a secret). */
  default: string;
  /** The field it was typed into, for a form that asks for it. */
  field: string;
  /** Typed into a secret field: not stored, so every replay asks for it. */
  secret?: true;
}

export interface WorkflowExpect {
  value?: string;
  changed?: boolean;
  urlChanged?: boolean;
}

export interface WorkflowStep {
  tool: string;
  args: Record<string, unknown>;
  target?: TargetDescriptor;
  /** The page the step ran on when recorded. */
  url: string;
  expect?: WorkflowExpect;
  /** The workflow version whose repair wrote this step (absent: recorded with the workflow). */
  repaired?: number;
}

/** Where a version's repair began: the step the replay stopped at, why, and the agent's run. */
export interface WorkflowRepair {
  step: number;
  reason: string;
  fromRun: string;
}

/** An earlier version of a workflow, kept in the newer one's `previous`. */
export interface WorkflowVersion {
  version: number;
  createdAt: string;
  fromRun: string;
  params: WorkflowParam[];
  steps: WorkflowStep[];
  repair?: WorkflowRepair;
}

export interface Workflow {
  webbrainWorkflow: number;
  name: string;
  /** The task the recorded run was given (an agent finishing a stopped replay is told it). */
  goal?: string;
  createdAt: string;
  fromRun: string;
  startUrl: string;
  params: WorkflowParam[];
  steps: WorkflowStep[];
  /** This revision's number (absent in files before format 3: version 1). */
  version?: number;
  repair?: WorkflowRepair;
  /** The versions before this one, oldest first. */
  previous?: WorkflowVersion[];
}

export class WorkflowError extends Error {
  override name = "WorkflowError";
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Parses and checks a workflow file's text; every problem is a WorkflowError saying what to fix. */
export function parseWorkflow(text: string): Workflow {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new WorkflowError("The workflow file is not JSON; save a workflow from a trace first.");
  }
  if (!isRecord(value) || typeof value.webbrainWorkflow !== "number") {
    throw new WorkflowError('This is not a WebBrain workflow file (no "webbrainWorkflow" version field).');
  }
  if (value.webbrainWorkflow > WORKFLOW_FORMAT_VERSION) {
    throw new WorkflowError(
      `The workflow is format ${value.webbrainWorkflow}; this WebBrain runs up to ${WORKFLOW_FORMAT_VERSION}. Update WebBrain.`,
    );
  }
  if (!Array.isArray(value.steps) || value.steps.length === 0) {
    throw new WorkflowError("The workflow has no steps; save it from a run that acted on the page.");
  }
  const steps = checkedSteps(value.steps);
  const params = checkedParams(value.params);
  const previous = Array.isArray(value.previous) ? value.previous.map(versionFrom) : [];
  const repair = repairFrom(value.repair);
  return {
    webbrainWorkflow: value.webbrainWorkflow,
    name: typeof value.name === "string" ? value.name : "workflow",
    ...(typeof value.goal === "string" && value.goal ? { goal: value.goal } : {}),
    createdAt: typeof value.createdAt === "string" ? value.createdAt : "",
    fromRun: typeof value.fromRun === "string" ? value.fromRun : "",
    startUrl: typeof value.startUrl === "string" ? value.startUrl : "",
    params,
    steps,
    ...(typeof value.version === "number" && value.version > 1 ? { version: value.version } : {}),
    ...(repair ? { repair } : {}),
    ...(previous.length ? { previous } : {}),
  };
}

function checkedSteps(steps: unknown[]): WorkflowStep[] {
  steps.forEach((step, index) => {
    if (!isRecord(step) || typeof step.tool !== "string" || !isRecord(step.args)) {
      throw new WorkflowError(
        `Step ${index + 1} of the workflow has no "tool" or "args"; the file is damaged.`,
      );
    }
  });
  return steps as WorkflowStep[];
}

function checkedParams(value: unknown): WorkflowParam[] {
  const params = Array.isArray(value) ? value : [];
  for (const param of params) {
    const secret = isRecord(param) && param.secret === true;
    if (
      !isRecord(param) ||
      typeof param.name !== "string" ||
      (typeof param.default !== "string" && !secret)
    ) {
      throw new WorkflowError('A workflow parameter lacks "name" or "default"; the file is damaged.');
    }
  }
  return (params as Record<string, unknown>[]).map(paramFrom);
}

function repairFrom(value: unknown): WorkflowRepair | undefined {
  if (!isRecord(value) || typeof value.step !== "number") return undefined;
  return {
    step: value.step,
    reason: typeof value.reason === "string" ? value.reason : "",
    fromRun: typeof value.fromRun === "string" ? value.fromRun : "",
  };
}

function versionFrom(value: unknown, index: number): WorkflowVersion {
  if (!isRecord(value) || typeof value.version !== "number" || !Array.isArray(value.steps)) {
    throw new WorkflowError(
      `Earlier version ${index + 1} of the workflow has no "version" or "steps"; the file is damaged.`,
    );
  }
  const repair = repairFrom(value.repair);
  return {
    version: value.version,
    createdAt: typeof value.createdAt === "string" ? value.createdAt : "",
    fromRun: typeof value.fromRun === "string" ? value.fromRun : "",
    params: checkedParams(value.params),
    steps: checkedSteps(value.steps),
    ...(repair ? { repair } : {}),
  };
}

/** This revision's number: 1 for a file from before revisions. */
export function workflowVersionNumber(workflow: Workflow): number {
  return workflow.version ?? 1;
}

/**
 * Version `version` of the workflow as a workflow of its own (the current one, or one kept in
 * `previous`), for a diff or a replay of an older version.
 */
export function workflowAtVersion(workflow: Workflow, version: number): Workflow {
  if (version === workflowVersionNumber(workflow)) return workflow;
  const kept = workflow.previous?.find((p) => p.version === version);
  if (!kept) {
    const known = [...(workflow.previous ?? []).map((p) => p.version), workflowVersionNumber(workflow)];
    throw new WorkflowError(
      `The workflow "${workflow.name}" has no version ${version} (its versions: ${known.join(", ")}).`,
    );
  }
  const { previous: _previous, repair: _repair, version: _version, ...rest } = workflow;
  return {
    ...rest,
    createdAt: kept.createdAt,
    fromRun: kept.fromRun,
    params: kept.params,
    steps: kept.steps,
    ...(kept.version > 1 ? { version: kept.version } : {}),
    ...(kept.repair ? { repair: kept.repair } : {}),
  };
}

function paramFrom(param: Record<string, unknown>): WorkflowParam {
  const field = typeof param.field === "string" ? param.field : String(param.name);
  // A secret's recorded value is never kept, even if a file carries one.
  if (param.secret === true) return { name: String(param.name), default: "", field, secret: true };
  return { name: String(param.name), default: String(param.default), field };
}

/** The secret parameters a replay still needs a value for. */
export function missingSecrets(workflow: Workflow, given: Record<string, string>): WorkflowParam[] {
  return workflow.params.filter((p) => p.secret && given[p.name] === undefined);
}

export function serializeWorkflow(workflow: Workflow): string {
  return `${JSON.stringify(workflow, null, 2)}\n`;
}

const PLACEHOLDER = /\{\{([a-zA-Z0-9_]+)\}\}/g;

/**
 * Values for every parameter: the given ones, else the recorded defaults. Unknown names are
 * errors, and so is a secret parameter without a value (it has no default), unless
 * `secretsOptional` (a text that only shows the steps).
 */
export function resolveParams(
  workflow: Workflow,
  given: Record<string, string>,
  options: { secretsOptional?: boolean } = {},
): Record<string, string> {
  const known = new Set(workflow.params.map((p) => p.name));
  for (const name of Object.keys(given)) {
    if (!known.has(name)) {
      const list = [...known].join(", ") || "none";
      throw new WorkflowError(`The workflow has no parameter "${name}" (its parameters: ${list}).`);
    }
  }
  const missing = missingSecrets(workflow, given);
  if (missing.length > 0 && !options.secretsOptional) {
    const names = missing.map((p) => `"${p.name}" (typed into "${p.field}")`).join(", ");
    throw new WorkflowError(
      `The workflow needs a value for the secret parameter ${names}: secrets are never saved, so give it for this replay.`,
    );
  }
  return Object.fromEntries(workflow.params.map((p) => [p.name, given[p.name] ?? p.default]));
}

export function fillPlaceholders(text: string, values: Record<string, string>): string {
  return text.replace(PLACEHOLDER, (whole, name: string) => values[name] ?? whole);
}
