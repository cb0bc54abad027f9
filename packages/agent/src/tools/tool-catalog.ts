/**
 * The tool catalog lives in @webbrain/protocol (src/tools/: one contract per tool, in families),
 * where the page layer, the ports and the test kit read it too. The agent re-exports it, so its
 * embedders keep one import.
 */
export {
  type AgentToolName,
  isObservation,
  PAGE_LAYER_ACTIONS,
  PAGE_LAYER_HELPER_ACTIONS,
  type PageLayerActionName,
  type PageToolName,
  PORT_ACTIONS,
  PORT_HELPER_ACTIONS,
  type PortActionToolName,
  type PortToolName,
  type ResultTrust,
  SHADOW_SEARCHING_ACTIONS,
  TOOL_CATALOG,
  type ToolContract,
  type ToolKind,
  type ToolName,
  type ToolOffer,
  type ToolRuns,
  TRUSTED_INPUT_ACTIONS,
  toolSpec,
} from "@webbrain/protocol";
