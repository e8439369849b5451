export * from './errors.js';
export * from './common.js';
export * from './auth.js';
export * from './plans.js';
