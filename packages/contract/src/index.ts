export * from './errors.js';
export * from './common.js';
export * from './auth.js';
export * from './plans.js';
export * from './account.js';
export * from './admin.js';
export * from './workers.js';
export * from './avatar.js';
