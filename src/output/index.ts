export * from './color.js';
export * from './json.js';
export * from './text.js';
export * from './http.js';
