/**
 * Skill files as a user writes them (spec 000's custom skills): a title, the instructions, and
 * the `webbrain-tools` block that declares the skill's tools. The add-on's and the runner's tests
 * build a skill's text here, so the file format is written down once; the tool declarations stay
 * plain objects (testkit does not import the agent that parses them).
 */

export interface SkillMarkdownParts {
  title: string;
  instructions: string;
  tools: readonly Record<string, unknown>[];
}

export function skillMarkdown({ title, instructions, tools }: SkillMarkdownParts): string {
  return `# ${title}\n${instructions}\n\`\`\`webbrain-tools\n${JSON.stringify({ tools })}\n\`\`\`\n`;
}

/** A read-only GET tool `lookup_fact` whose answer is untrusted; `{q}` in `endpoint` is the query. */
export function lookupFactSkill(endpoint: string): string {
  return skillMarkdown({
    title: "Fact lookup",
    instructions: "Use lookup_fact to look facts up.",
    tools: [
      {
        name: "lookup_fact",
        description: "Look a fact up",
        kind: "http",
        readOnly: true,
        method: "GET",
        endpoint,
        resultPolicy: "untrusted",
        parameters: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
      },
    ],
  });
}

/** A tool `flood_lookup` whose answers are cut at 1000 characters (the tests of read caps). */
export function floodLookupSkill(endpoint: string): string {
  return skillMarkdown({
    title: "Flood",
    instructions: "Use flood_lookup.",
    tools: [
      {
        name: "flood_lookup",
        description: "Look something up",
        kind: "http",
        readOnly: true,
        method: "GET",
        endpoint,
        responseLimits: { maxTextChars: 1000 },
        parameters: { type: "object", properties: {} },
      },
    ],
  });
}
