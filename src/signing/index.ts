// The signing core: pure functions over bytes. Clock and nonce are always passed in.
export * from './encoding.js';
export * from './canonical.js';
export * from './compare.js';
export * from './request.js';
export * from './webhook.js';
