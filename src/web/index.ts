// The web page, loaded by `serve` only when the operator set its password.
export { Uploads } from './Uploads.js';
export { WebAuth } from './WebAuth.js';
export { webRoutes } from './webRoutes.js';
