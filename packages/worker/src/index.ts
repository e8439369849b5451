export { startWorker, type WorkerHandle, type WorkerOptions, type WorkerLogger } from './agent.js';
