export * from './codes.js';
export * from './admission.js';
export * from './protocol.js';
export * from './rates.js';
export * from './session-speech.js';
export * from './worker-rpc.js';
export * from './embed-api.js';
export * from './agent-api.js';
