export * from './users.js';
export * from './mail.js';
