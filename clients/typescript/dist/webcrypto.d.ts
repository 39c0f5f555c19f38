/**
 * Web Crypto, for the transaction ids the client makes and the webhook check: the global one (Node 19+, Deno, Bun,
 * browsers, edge runtimes), or on Node 18, where it is global only behind a flag, node:crypto's.
 */
export declare const webcrypto: Crypto;
