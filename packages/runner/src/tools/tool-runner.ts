/**
 * The runner's face of the agent's ToolRunner (tool calls without a model, for `webbrain exec`
 * and the MCP servers): the class lives in @webbrain/agent, where the add-on's attached MCP
 * clients use it too; here is only the check a command makes before Firefox starts.
 */
import { AgentError, type ToolContract, toolsFor } from "@webbrain/agent";
import { ALL_BROWSER_CAPABILITIES, type BrowserCapabilities, type Mode, type Tier } from "@webbrain/protocol";
import { UsageError } from "../errors.js";

export { type SkillToolListing, type ToolAnswer, ToolRunner, type ToolRunnerOptions } from "@webbrain/agent";

/**
 * The tools a mode and tier offer on a port with these capabilities; a UsageError for a
 * combination that has none (Compact Dev). Without capabilities (the check before Firefox
 * starts) it answers what the mode and tier would offer on a port that can run everything.
 */
export function offeredTools(
  mode: Mode,
  tier: Tier,
  vision: boolean,
  capabilities: BrowserCapabilities = ALL_BROWSER_CAPABILITIES,
): ToolContract[] {
  try {
    return toolsFor({ mode, tier, vision, capabilities });
  } catch (error) {
    if (error instanceof AgentError) throw new UsageError(error.message);
    throw error;
  }
}
