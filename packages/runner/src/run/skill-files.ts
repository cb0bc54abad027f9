/**
 * `--skill FILE|NAME` (repeatable) for `webbrain run` and `webbrain mcp`: skills as the add-on
 * imports them (Markdown with an optional ```webbrain-tools manifest), read from files, or one
 * of the skills packaged with the agent by its id (`--skill wikipedia`: the add-on seeds the
 * same files). Loading is the trust boundary, as importing is in the add-on: a malformed
 * manifest stops the command before any browser starts, with the file named and the problem
 * said. A file of that name wins over a packaged skill, so no file is ever shadowed.
 */
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import {
  importSkill,
  isPackagedSkillId,
  PACKAGED_SKILL_IDS,
  parseSkills,
  type SkillDefinition,
  SkillImportError,
} from "@webbrain/agent";
import { UsageError } from "../errors.js";

const require = createRequire(import.meta.url);

/** A packaged skill's file, where @webbrain/agent ships it (its `./skills/*` export). */
function packagedSkillPath(id: string): string {
  return require.resolve(`@webbrain/agent/skills/${id}.md`);
}

/** The skill's Markdown: the file, else the packaged skill of that id. */
async function skillText(arg: string): Promise<string> {
  try {
    return await readFile(arg, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    if (code === "ENOENT" && isPackagedSkillId(arg)) return readFile(packagedSkillPath(arg), "utf8");
    throw new UsageError(
      `--skill ${arg}: cannot read the file (${code}); a packaged skill is named by its id: ${PACKAGED_SKILL_IDS.join(", ")}.`,
    );
  }
}

export async function loadSkillFiles(paths: readonly string[]): Promise<SkillDefinition[]> {
  const skills: SkillDefinition[] = [];
  for (const path of paths) {
    const text = await skillText(path);
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
