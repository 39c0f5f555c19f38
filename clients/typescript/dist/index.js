/** Lineup's client for carrier sales channels (docs/clients.md). */
export { VERSION } from "./actions.js";
export { Lineup } from "./client.js";
export { AuthenticationError, ClientError, ConnectionFailed, LineupError, TimedOut, Unavailable, UnexpectedAnswer, } from "./errors.js";
export { SIGNATURE_HEADER, verifyWebhook } from "./webhooks.js";
