/** The Resumption Context Manager: host-neutral routing, task state memory and assembly. */
export type { Action, ActionKind, Group, RcmMode } from "./history.js";
export { rcmModes, actionText } from "./history.js";
export { RcmEngine, type RcmMemory } from "./engine.js";
export { planAssembly, renderAssembly, missingRequests, elidedNote, type AssemblyPlan, type Treatment, type RenderedMessage } from "./assembly.js";
export { routeRequest, emptyRouterState, type Assignment, type RouterState, type TaskInfo, type RouteMethod } from "./router.js";
export { requestFeatures, RouterIndex } from "./router-index.js";
export { renderTaskState, emptyTaskState, recordOpen, recordClose, type TaskState, type StateItem, type ItemKind } from "./state-record.js";
export { foldGroup, stateLimits } from "./state-updater.js";
export { compactionGuidance, compactionContext } from "./compaction.js";
export { parseRcmOptions, resolveStateDir, rcmOptionsSchema, type RcmOptions, type RcmOptionsInput } from "./options.js";
export { loadStateFile, saveStateFile, removeStateFiles, appendAuxUsage, stateFiles, stateFileSchema, stateFileFormat, type StateFile } from "./store.js";
export type { AuxModelConfig, AuxUsage } from "./aux-model.js";
