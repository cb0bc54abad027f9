/**
 * The skills that ship with the add-on (packages/extension/skills/*.md), bundled as text.
 * Seeded into `customSkills` on first run (skills-store.ts); the user may disable or delete them.
 */
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
];
