/**
 * `--skill FILE` (repeatable) for `webbrain run`: skills as the add-on imports them (Markdown
 * with an optional ```webbrain-tools manifest), read from files. Loading is the trust boundary,
 * as importing is in the add-on: a malformed manifest stops the command before any browser
 * starts, with the file named and the problem said.
 */
import { readFile } from "node:fs/promises";
import { importSkill, parseSkills, type SkillDefinition, SkillImportError } from "@webbrain/agent";
import { UsageError } from "./errors.js";

export async function loadSkillFiles(paths: readonly string[]): Promise<SkillDefinition[]> {
  const skills: SkillDefinition[] = [];
  for (const path of paths) {
    let text: string;
    try {
      text = await readFile(path, "utf8");
    } catch (error) {
      throw new UsageError(
        `--skill ${path}: cannot read the file (${(error as NodeJS.ErrnoException).code ?? error}).`,
      );
    }
    try {
      const others = parseSkills(skills).flatMap((parsed) => parsed.tools.map((tool) => tool.name));
      skills.push(
        importSkill(text, { existingIds: skills.map((skill) => skill.id), otherToolNames: others }),
      );
    } catch (error) {
      if (error instanceof SkillImportError) throw new UsageError(`--skill ${path}: ${error.message}`);
      throw error;
    }
  }
  return skills;
}
