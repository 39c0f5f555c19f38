/**
 * The check of a webhook delivery's `Lineup-Signature` header, as docs/webhooks.md gives it, on Web Crypto (Node
 * 18+, Deno, Bun, edge runtimes): `v1` is the hex HMAC-SHA256, under the endpoint's secret, of the timestamp `t`,
 * a dot and the raw body.
 */
import { webcrypto } from "./webcrypto.js";
export const SIGNATURE_HEADER = "Lineup-Signature";
const encoder = new TextEncoder();
function hexBytes(hex) {
    if (!/^(?:[0-9a-fA-F]{2})+$/.test(hex))
        return undefined;
    return Uint8Array.from(hex.match(/../g) ?? [], (pair) => parseInt(pair, 16));
}
/**
 * True when `body` (the raw request body, before any parsing) was signed by Lineup with `secret` within
 * `tolerance` seconds of now.
 */
export async function verifyWebhook(secret, header, body, tolerance = 300) {
    const parts = new Map();
    for (const item of header.split(",")) {
        const at = item.indexOf("=");
        if (at > 0)
            parts.set(item.slice(0, at).trim(), item.slice(at + 1));
    }
    const timestamp = parts.get("t") ?? "";
    const signature = hexBytes(parts.get("v1") ?? "");
    if (!/^\d+$/.test(timestamp) || Math.abs(Date.now() / 1000 - Number(timestamp)) > tolerance || !signature) {
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
