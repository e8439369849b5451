export { createSandboxPool } from './pool.js';
export { sandboxNodeFlags } from './process.js';
export {
  type CallOptions,
  type CallResult,
  type DescribeResult,
  type JsonSchemaObject,
  type SandboxErrorKind,
  type SandboxFailure,
  type SandboxLogger,
  type SandboxOutboundOptions,
  type SandboxPool,
  type SandboxPoolOptions,
  type SandboxPoolStats,
  type ToolSpec,
} from './types.js';
export { createFunctionTools, type FunctionToolsOptions } from './tool-runner.js';
