/**
 * The check of a webhook delivery's `Lineup-Signature` header, as docs/webhooks.md gives it, on Web Crypto (Node
 * 18+, Deno, Bun, edge runtimes): `v1` is the hex HMAC-SHA256, under the endpoint's secret, of the timestamp `t`,
 * a dot and the raw body.
 */
import { webcrypto } from "./webcrypto.js";
export const SIGNATURE_HEADER = "Lineup-Signature";
const encoder = new TextEncoder();
/** A few ASCII digits (the same bound as the Python client's). */
const TIMESTAMP = /^[0-9]{1,18}$/;
/** The bytes of a SHA-256 in hexadecimal, or undefined for anything else. */
function hexBytes(hex) {
    if (!/^[0-9a-fA-F]{64}$/.test(hex))
        return undefined;
    return Uint8Array.from(hex.match(/../g) ?? [], (pair) => parseInt(pair, 16));
}
/** The header's `key=value` items; undefined when it is not text, or names a key twice (which one would count?). */
function fields(header) {
    if (typeof header !== "string")
        return undefined;
    const found = new Map();
    for (const item of header.split(",")) {
        const at = item.indexOf("=");
        if (at < 0)
            continue;
        const key = item.slice(0, at).trim();
        if (found.has(key))
            return undefined;
        found.set(key, item.slice(at + 1).trim());
    }
    return found;
}
/**
 * True when `body` (the raw request body, before any parsing) was signed by Lineup with `secret` within
 * `tolerance` seconds of now; false for anything else, a malformed or missing header included (never a throw: the
 * header comes from whoever reached the receiver).
 */
export async function verifyWebhook(secret, header, body, tolerance = 300) {
    const parts = fields(header);
    const timestamp = parts?.get("t") ?? "";
    const signature = hexBytes(parts?.get("v1") ?? "");
    if (!TIMESTAMP.test(timestamp) || Math.abs(Date.now() / 1000 - Number(timestamp)) > tolerance || !signature) {
        return false;
    }
    const raw = typeof body === "string" ? encoder.encode(body) : body;
    const signed = new Uint8Array([...encoder.encode(`${timestamp}.`), ...raw]);
    const crypto = webcrypto.subtle;
    const key = await crypto.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, [
        "verify",
    ]);
    return crypto.verify("HMAC", key, signature, signed); // compares in constant time
}
