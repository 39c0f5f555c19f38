/** Lineup's client for carrier sales channels (docs/clients.md). */
export { VERSION, type Fields } from "./actions.js";
export type { Retry } from "./calls.js";
export { Lineup, type LineupOptions } from "./client.js";
export { AuthenticationError, ClientError, ConnectionFailed, LineupError, TimedOut, Unavailable, UnexpectedAnswer, } from "./errors.js";
export type { components } from "./schema.js";
export { SIGNATURE_HEADER, verifyWebhook } from "./webhooks.js";
