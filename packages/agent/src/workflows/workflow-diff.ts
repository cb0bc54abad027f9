/**
 * What changed between two versions of a workflow (or two workflow files), step by step, for
 * `webbrain workflow diff A B` and the add-on's workflow panel: the longest run of steps both
 * share stays, the rest is removed from A or added in B. Two steps are the same when they do
 * the same thing (tool, target, arguments as the file has them); the page they ran on, the
 * effect recorded and which repair wrote them do not count.
 */
import type { Workflow, WorkflowParam, WorkflowStep } from "./workflow-format.js";
import { describeStep } from "./workflow-replay.js";

export interface WorkflowDiffLine {
  kind: "same" | "removed" | "added";
  /** The step's 1-based number in A (same, removed) and in B (same, added). */
  before?: number;
  after?: number;
  /** The step as a line (describeStep, numbered as in B when it is there, else as in A). */
  text: string;
}

export interface WorkflowDiff {
  steps: WorkflowDiffLine[];
  /** Parameters only A or only B has, and those whose recorded value changed. */
  params: { kind: "removed" | "added" | "changed"; name: string; text: string }[];
  /** No step and no parameter differs. */
  same: boolean;
}

function stepKey(step: WorkflowStep): string {
  return JSON.stringify([step.tool, step.target ?? null, step.args]);
}

function paramText(param: WorkflowParam): string {
  return param.secret ? `${param.name} (secret)` : `${param.name} (${JSON.stringify(param.default)})`;
}

/** Longest common subsequence table over the step keys, read back as diff lines. */
function diffSteps(a: readonly WorkflowStep[], b: readonly WorkflowStep[]): WorkflowDiffLine[] {
  const keysA = a.map(stepKey);
  const keysB = b.map(stepKey);
  const rows = keysA.length + 1;
  const cols = keysB.length + 1;
  const common = new Array<number>(rows * cols).fill(0);
  for (let i = keysA.length - 1; i >= 0; i--) {
    for (let j = keysB.length - 1; j >= 0; j--) {
      common[i * cols + j] =
        keysA[i] === keysB[j]
          ? common[(i + 1) * cols + j + 1]! + 1
          : Math.max(common[(i + 1) * cols + j]!, common[i * cols + j + 1]!);
    }
  }
  const lines: WorkflowDiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < keysA.length || j < keysB.length) {
    if (i < keysA.length && j < keysB.length && keysA[i] === keysB[j]) {
      lines.push({ kind: "same", before: i + 1, after: j + 1, text: describeStep(b[j]!, j + 1, {}) });
      i++;
      j++;
    } else if (
      j < keysB.length &&
      (i >= keysA.length || common[i * cols + j + 1]! >= common[(i + 1) * cols + j]!)
    ) {
      lines.push({ kind: "added", after: j + 1, text: describeStep(b[j]!, j + 1, {}) });
      j++;
    } else {
      lines.push({ kind: "removed", before: i + 1, text: describeStep(a[i]!, i + 1, {}) });
      i++;
    }
  }
  // Within a changed stretch, what went comes before what replaced it.
  for (let k = 1; k < lines.length; k++) {
    for (let m = k; m > 0 && lines[m]!.kind === "removed" && lines[m - 1]!.kind === "added"; m--) {
      [lines[m - 1], lines[m]] = [lines[m]!, lines[m - 1]!];
    }
  }
  return lines;
}

export function diffWorkflows(a: Workflow, b: Workflow): WorkflowDiff {
  const steps = diffSteps(a.steps, b.steps);
  const before = new Map(a.params.map((p) => [p.name, p]));
  const after = new Map(b.params.map((p) => [p.name, p]));
  const params: WorkflowDiff["params"] = [];
  for (const [name, param] of before) {
    const now = after.get(name);
    if (!now) params.push({ kind: "removed", name, text: paramText(param) });
    else if (paramText(now) !== paramText(param))
      params.push({ kind: "changed", name, text: `${paramText(param)} -> ${paramText(now)}` });
  }
  for (const [name, param] of after) {
    if (!before.has(name)) params.push({ kind: "added", name, text: paramText(param) });
  }
  return { steps, params, same: params.length === 0 && steps.every((line) => line.kind === "same") };
}

const MARK: Record<WorkflowDiffLine["kind"], string> = { same: " ", removed: "-", added: "+" };

/** The diff as text lines: "- " removed, "+ " added, "  " unchanged, then the parameters. */
export function formatWorkflowDiff(diff: WorkflowDiff): string[] {
  const lines = diff.steps.map((line) => `${MARK[line.kind]} ${line.text}`);
  for (const param of diff.params) {
    const mark = param.kind === "removed" ? "-" : param.kind === "added" ? "+" : "~";
    lines.push(`${mark} parameter ${param.text}`);
  }
  return lines;
}
