export * from './users.js';
export * from './mail.js';
export * from './avatars.js';
export * from './billing.js';
export * from './plans.js';
export * from './workers.js';
export * from './image-avatars.js';
