/**
 * Web Crypto, for the transaction ids the client makes and the webhook check: the global one (Node 19+, Deno, Bun,
 * browsers, edge runtimes), or on Node 18, where it is global only behind a flag, node:crypto's.
 */
async function nodeCrypto() {
    const name = "node:crypto"; // a variable: bundlers for runtimes that have the global leave it alone
    return (await import(name)).webcrypto;
}
export const webcrypto = globalThis.crypto?.subtle ? globalThis.crypto : await nodeCrypto();
