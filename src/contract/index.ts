export * from './routes.js';
export * from './errors.js';
export * from './resources.js';
export * from './requests.js';
export * from './customer.js';
