/**
 * The skills that ship with the add-on (packages/extension/skills/*.md), bundled as text.
 * Seeded into `customSkills` on first run (skills-store.ts); the user may disable or delete them.
 * Spec 000 names both as enabled by default: Wikipedia and FreeSkillz.xyz (YouTube transcripts,
 * public media metadata and downloads). Each id is also its file's name (skills/<id>.md): the
 * packaged-skills test reads the files by it.
 */
import freeskillz from "../../skills/freeskillz-xyz.md";
import wikipedia from "../../skills/wikipedia.md";

export interface PackagedSkill {
  id: string;
  name: string;
  body: string;
  /** Enabled when first seeded. */
  enabledByDefault: boolean;
}

export const PACKAGED_SKILLS: readonly PackagedSkill[] = [
  { id: "wikipedia", name: "Wikipedia", body: wikipedia, enabledByDefault: true },
  { id: "freeskillz-xyz", name: "FreeSkillz.xyz", body: freeskillz, enabledByDefault: true },
];
