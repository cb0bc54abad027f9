/**
 * The recorded run of the workflow fixtures (fixtures/workflow/order-v*.html) as a scripted
 * model makes it: Ada Lovelace orders 3, found by role and name in the tree it read.
 */
import { findRef, type ScriptedToolCall } from "./script.js";

/** Types name, email and quantity into the order form and presses Save. */
export function adaOrderCalls(tree: string): ScriptedToolCall[] {
  return [
    { name: "type_ax", arguments: { ref_id: findRef(tree, "textbox", "Name"), value: "Ada Lovelace" } },
    { name: "type_ax", arguments: { ref_id: findRef(tree, "textbox", "Email"), value: "ada@example.com" } },
    { name: "type_ax", arguments: { ref_id: findRef(tree, "spinbutton", "Quantity"), value: "3" } },
    { name: "click_ax", arguments: { ref_id: findRef(tree, "button", "Save") } },
  ];
}

/**
 * Finishes the order on order-v3 (a Phone field where v1 had Email), as an agent handed a stopped
 * replay does: phone and quantity typed, Save pressed, the page let settle.
 */
export function phoneOrderFinishCalls(tree: string): ScriptedToolCall[] {
  return [
    { name: "type_ax", arguments: { ref_id: findRef(tree, "textbox", "Phone"), value: "555-0100" } },
    { name: "type_ax", arguments: { ref_id: findRef(tree, "spinbutton", "Quantity"), value: "3" } },
    { name: "click_ax", arguments: { ref_id: findRef(tree, "button", "Save") } },
    { name: "wait_for_stable", arguments: {} },
  ];
}
