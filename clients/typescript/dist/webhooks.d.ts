/**
 * The check of a webhook delivery's `Lineup-Signature` header, as docs/webhooks.md gives it, on Web Crypto (Node
 * 18+, Deno, Bun, edge runtimes): `v1` is the hex HMAC-SHA256, under the endpoint's secret, of the timestamp `t`,
 * a dot and the raw body.
 */
export declare const SIGNATURE_HEADER = "Lineup-Signature";
/**
 * True when `body` (the raw request body, before any parsing) was signed by Lineup with `secret` within
 * `tolerance` seconds of now; false for anything else, a malformed or missing header included (never a throw: the
 * header comes from whoever reached the receiver).
 */
export declare function verifyWebhook(secret: string, header: string | null | undefined, body: string | Uint8Array, tolerance?: number): Promise<boolean>;
