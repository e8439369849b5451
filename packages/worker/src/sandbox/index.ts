export {
  createSandboxPool,
  sandboxNodeFlags,
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
} from './pool.js';
export { createFunctionTools, type FunctionToolsOptions } from './tool-runner.js';
