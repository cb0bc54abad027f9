/**
 * The workflow panel's "Versions" toggle: a saved workflow that a repair revised lists its
 * versions (when each was made, and where and why a repair began), and shows what changed
 * between two of them, the last two at first: the steps and inputs removed, added and changed,
 * as @webbrain/agent's diffWorkflows names them (the lines `webbrain workflow diff` prints).
 * A workflow with one version has no toggle.
 */
import {
  diffWorkflows,
  formatWorkflowDiff,
  type Workflow,
  type WorkflowDiff,
  workflowAtVersion,
  workflowVersionNumber,
} from "@webbrain/agent";
import { element } from "../shared/element.js";
import { t } from "../shared/i18n.js";

/** The workflow's version numbers, oldest first. */
function versionNumbers(workflow: Workflow): number[] {
  return [...(workflow.previous ?? []).map((p) => p.version), workflowVersionNumber(workflow)];
}

function versionLine(workflow: Workflow, version: number): string {
  const at = workflowAtVersion(workflow, version);
  const when = at.createdAt.slice(0, 16).replace("T", " ");
  return at.repair
    ? t("workflowVersionRepaired", version, when, at.repair.step, at.repair.reason)
    : t("workflowVersionRecorded", version, when);
}

/** Each diff line as a list item whose class says what happened to it. */
function diffItems(diff: WorkflowDiff): HTMLLIElement[] {
  const kinds = [...diff.steps.map((line) => line.kind), ...diff.params.map((param) => param.kind)];
  return formatWorkflowDiff(diff).map((text, i) =>
    element("li", { className: kinds[i] ?? "same", textContent: text }),
  );
}

function versionSelect(name: string, versions: number[], chosen: number): HTMLSelectElement {
  const select = element("select", { name });
  for (const version of versions) {
    select.append(
      element("option", {
        value: String(version),
        textContent: String(version),
        selected: version === chosen,
      }),
    );
  }
  return select;
}

/** The versions box: the list, two version pickers and the diff between them. */
function versionsBox(workflow: Workflow): HTMLDivElement {
  const versions = versionNumbers(workflow);
  const box = element("div", { className: "workflow-versions" });
  const list = element("ul", { className: "version-list" });
  for (const version of versions) list.append(element("li", { textContent: versionLine(workflow, version) }));
  const from = versionSelect("diff-from", versions, versions.at(-2) ?? versions[0]!);
  const to = versionSelect("diff-to", versions, versions.at(-1)!);
  const pickers = element("p", { className: "version-pickers" });
  pickers.append(`${t("workflowDiffFrom")} `, from, ` ${t("workflowDiffTo")} `, to);
  const lines = element("ol", { className: "workflow-diff" });
  const show = () => {
    const diff = diffWorkflows(
      workflowAtVersion(workflow, Number(from.value)),
      workflowAtVersion(workflow, Number(to.value)),
    );
    lines.replaceChildren(...diffItems(diff));
    if (diff.same) lines.append(element("li", { className: "same", textContent: t("workflowDiffSame") }));
  };
  from.addEventListener("change", show);
  to.addEventListener("change", show);
  show();
  box.append(list, pickers, lines);
  return box;
}

/**
 * The "Versions" button for a saved workflow's entry `li` (undefined: one version only), which
 * shows or hides its versions box there.
 */
export function versionsToggle(li: HTMLElement, workflow: Workflow): HTMLButtonElement | undefined {
  if (!workflow.previous?.length) return undefined;
  const button = element("button", {
    type: "button",
    className: "versions",
    textContent: t("workflowVersions"),
  });
  button.addEventListener("click", () => {
    const open = li.querySelector(":scope > .workflow-versions");
    if (open) open.remove();
    else li.append(versionsBox(workflow));
  });
  return button;
}
