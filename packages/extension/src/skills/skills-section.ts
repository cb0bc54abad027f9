/**
 * Settings -> Skills: list (enable/disable, view, remove) and import by paste or file. Every
 * change goes to the background (skills-service.ts), which owns `customSkills`; a malformed
 * skill's error is shown as the background phrased it, and nothing is stored.
 */

import { t } from "../shared/i18n.js";
import type { SkillSummary } from "./skills-store.js";

type Reply<T> = { ok: true; value: T } | { ok: false; error: string };

async function ask<T>(message: Record<string, unknown>): Promise<T> {
  const reply = (await browser.runtime.sendMessage(message)) as Reply<T> | undefined;
  if (!reply || typeof reply !== "object") throw new Error(t("skillsBackgroundSilent"));
  if (!reply.ok) throw new Error(reply.error);
  return reply.value;
}

function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: { className?: string; text?: string; id?: string } = {},
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (props.className) node.className = props.className;
  if (props.text !== undefined) node.textContent = props.text;
  if (props.id) node.id = props.id;
  return node;
}

export function mountSkillsSection(parent: HTMLElement): void {
  const section = element("section", { id: "skills" });
  section.setAttribute("aria-labelledby", "skills-heading");
  section.append(
    element("h2", { id: "skills-heading", text: t("skillsHeading") }),
    element("p", { className: "hint", text: t("skillsIntro") }),
  );
  const list = element("ul", { id: "skill-list", className: "skill-list" });
  const status = element("p", { id: "skill-status", className: "hint" });
  status.setAttribute("role", "status");

  const importBox = element("div", { className: "skill-import" });
  const label = element("label", { text: t("skillImportHint") });
  label.htmlFor = "skill-import-text";
  const textarea = element("textarea", { id: "skill-import-text" });
  textarea.rows = 8;
  textarea.spellcheck = false;
  const importButton = element("button", {
    id: "skill-import",
    className: "primary",
    text: t("skillImportButton"),
  });
  importButton.type = "button";
  const fileInput = element("input", { id: "skill-import-file" });
  fileInput.type = "file";
  fileInput.accept = ".md,.markdown,.txt,text/markdown,text/plain";
  const fileLabel = element("label", { text: t("skillImportFile") });
  fileLabel.htmlFor = "skill-import-file";
  const error = element("p", { id: "skill-import-error", className: "errors" });
  error.setAttribute("role", "alert");
  importBox.append(
    element("h3", { text: t("skillImportHeading") }),
    label,
    textarea,
    importButton,
    fileLabel,
    fileInput,
    error,
  );
  section.append(list, status, importBox);
  parent.append(section);

  async function refresh(): Promise<void> {
    const skills = await ask<SkillSummary[]>({ type: "wb_skills_list" });
    list.replaceChildren(...skills.map(renderSkill));
    if (skills.length === 0) list.append(element("li", { className: "hint", text: t("skillsEmpty") }));
  }

  function renderSkill(skill: SkillSummary): HTMLLIElement {
    const item = element("li", { className: "skill" });
    item.dataset.skillId = skill.id;
    const title = element("strong", { className: "skill-name", text: skill.name });
    const badge = skill.packaged
      ? element("span", { className: "badge", text: t("skillPackaged") })
      : undefined;
    const summary = element("p", { className: "skill-summary", text: skill.summary });
    const tools = element("p", {
      className: "skill-tools",
      text: skill.tools.length > 0 ? t("skillTools", skill.tools.join(", ")) : t("skillNoTools"),
    });
    const toggleLabel = element("label", { className: "skill-enabled" });
    const toggle = element("input");
    toggle.type = "checkbox";
    toggle.checked = skill.enabled;
    toggleLabel.append(toggle, document.createTextNode(` ${t("skillEnabled")}`));
    toggle.addEventListener("change", () => {
      void ask({ type: "wb_skills_set_enabled", id: skill.id, enabled: toggle.checked }).catch(showError);
    });
    const body = element("pre", { className: "skill-body", text: skill.body });
    body.hidden = true;
    const view = element("button", { className: "secondary skill-view", text: t("skillView") });
    view.type = "button";
    view.addEventListener("click", () => {
      body.hidden = !body.hidden;
      view.textContent = body.hidden ? t("skillView") : t("skillHide");
    });
    const remove = element("button", { className: "secondary skill-remove", text: t("removeButton") });
    remove.type = "button";
    remove.addEventListener("click", () => {
      if (!window.confirm(t("skillRemoveConfirm", skill.name))) return;
      void ask({ type: "wb_skills_remove", id: skill.id }).then(refresh).catch(showError);
    });
    item.append(title, ...(badge ? [badge] : []), summary, tools);
    if (skill.errors.length > 0)
      item.append(element("p", { className: "errors", text: t("skillProblems", skill.errors.join("; ")) }));
    item.append(toggleLabel, view, remove, body);
    return item;
  }

  function showError(problem: unknown): void {
    error.textContent = problem instanceof Error ? problem.message : String(problem);
  }

  async function importText(markdown: string): Promise<void> {
    error.textContent = "";
    status.textContent = "";
    try {
      const added = await ask<{ name: string }>({ type: "wb_skills_import", markdown });
      status.textContent = t("skillImported", added.name);
      textarea.value = "";
      await refresh();
    } catch (problem) {
      showError(problem);
    }
  }

  importButton.addEventListener("click", () => void importText(textarea.value));
  fileInput.addEventListener("change", () => {
    const file = fileInput.files?.[0];
    if (!file) return;
    void file.text().then(importText);
    fileInput.value = "";
  });
  void refresh().catch(showError);
}
