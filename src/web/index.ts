// The web page, loaded by `serve` only when the operator set its password.
export { PayerBook } from './payerBook.js';
export { Uploads } from './Uploads.js';
export { READER_LIMITS, UploadReader } from './UploadReader.js';
export { MIN_PASSWORD, WebAuth } from './WebAuth.js';
export { Audit } from './Audit.js';
export { OidcSignIn } from './oidcSignIn.js';
export { FourEyes } from './fourEyes.js';
export { SECURITY_HEADERS, webRoutes } from './webRoutes.js';
export { Mappings } from '../inbox/Mappings.js';
export { PayerAccess } from './payerPageAccess.js';
export { isPayerPath, payerPageHeaders, payerPageRoutes } from './payerPageRoutes.js';
