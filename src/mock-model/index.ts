export { startMockModel, type MockModelOptions, type MockModelServer, type RecordedRequest } from "./server.js";
export { loadScript, parseScript, pickTurn, fillTemplate, type Script, type ScriptInput, type ScriptTurn, type ScriptToolCall } from "./script.js";
