/**
 * What a call does, without any I/O: the body it sends, the envelope read from an answer, and what comes next
 * after each answer or lost connection (return, heal the token chain, repeat later, or give up). The same rules as
 * the Python client's lineup_client/_calls.py; Lineup's side of them is in docs/clients.md.
 */
import { AuthenticationError, ConnectionFailed, LineupError, TimedOut, Unavailable, UnexpectedAnswer, } from "./errors.js";
import { webcrypto } from "./webcrypto.js";
export const SUCCESS = "RESTAPI000";
const TOKEN_REFUSED = "RESTAPI001";
const ERROR = "RESTAPI110";
/** A token refused at the token check, before the action ran: a new chain and the same request are safe. */
const TOKEN_PROBLEMS = new Set(["Invalid Token", "Token already used", "Token expire"]);
const EXPIRED = "Token expire";
/** Lineup's outage answers, and a payment still settling: the request did nothing yet, or its repeat is answered from it. */
const LATER = ["please try again later", "ask again in a minute"];
/** What a proxy (or Lineup in `rest` mode) answers while the service is away: worth the same repeat. */
const GATEWAY_STATUSES = new Set([502, 503, 504]);
export const RETRY = { repeats: 3, backoffMs: 500, maxBackoffMs: 8000 };
/** The envelope of an answer, or UnexpectedAnswer quoting what came instead. */
function readEnvelope(status, text) {
    let found;
    try {
        found = JSON.parse(text);
    }
    catch {
        throw new UnexpectedAnswer(status, text);
    }
    if (typeof found !== "object" || found === null || Array.isArray(found))
        throw new UnexpectedAnswer(status, text);
    const body = found;
    if (typeof body.msg_code !== "string" || !("msg" in body))
        throw new UnexpectedAnswer(status, text);
    const errors = Array.isArray(body.errors) ? body.errors.map(String) : body.errors ? [String(body.errors)] : [];
    const token = typeof body.token === "string" && body.token ? body.token : undefined;
    return { status, msgCode: body.msg_code, msg: String(body.msg), errors, token, data: body.data };
}
function later(envelope) {
    const outage = envelope.msgCode === ERROR && envelope.errors.some((text) => LATER.some((end) => text.endsWith(end)));
    return outage || envelope.status === 503;
}
function refusal(envelope, kind) {
    return new kind(envelope.msgCode, envelope.msg, envelope.errors, envelope.data, envelope.status);
}
/** An external_transaction_id of the client's making: letters and digits, 32 of them. */
export function transactionId() {
    const bytes = webcrypto.getRandomValues(new Uint8Array(16));
    return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}
/** `plan`, `/plan` and `/plan/` are one path, whatever the base URL ends with. */
export function pathOf(path) {
    return "/" + path.replace(/^\/+|\/+$/g, "");
}
/** What is left of one call's repeats, and why it is on the next one. */
export class Attempts {
    retry;
    what;
    log;
    repeats = 0;
    healed = false;
    constructor(retry, 
    /** `/customer create_customer_prepaid_multiline`, for the log: never the body. */
    what, log) {
        this.retry = retry;
        this.what = what;
        this.log = log;
    }
    /** The wait before one more repeat, or undefined when there is none left. */
    again(reason) {
        if (this.repeats >= this.retry.repeats)
            return undefined;
        this.repeats += 1;
        const ceiling = Math.min(this.retry.maxBackoffMs, this.retry.backoffMs * 2 ** (this.repeats - 1));
        const waitMs = ceiling / 2 + Math.random() * (ceiling / 2);
        this.log(`${this.what}: ${reason}; repeating in ${(waitMs / 1000).toFixed(1)} s (${this.repeats} of ${this.retry.repeats})`);
        return waitMs;
    }
    /** No answer: the request may or may not have reached Lineup, so it goes again with the same id (and a chain
     * of its own: the token it carried may be spent). */
    lost(error, timedOut) {
        const reason = timedOut ? "no answer in time" : `connection failed (${describe(error)})`;
        const waitMs = this.again(reason);
        if (waitMs !== undefined)
            return { waitMs };
        const kind = timedOut ? TimedOut : ConnectionFailed;
        return { error: new kind(`${this.what}: ${reason}, ${this.repeats} repeats spent`, { cause: error }) };
    }
    /** An answer that is not the envelope: a gateway's "come back later" is repeated, anything else thrown. */
    unexpected(status, text) {
        const waitMs = GATEWAY_STATUSES.has(status) ? this.again(`HTTP ${status} from the way there`) : undefined;
        return waitMs !== undefined ? { waitMs } : { error: new UnexpectedAnswer(status, text) };
    }
    /** After a refusal Lineup may take back later: a repeat while some are left, else `kind` thrown. */
    refused(envelope, kind) {
        const waitMs = later(envelope) ? this.again(envelope.errors.join("; ") || envelope.msg) : undefined;
        if (waitMs !== undefined)
            return { token: envelope.token, waitMs };
        return { token: envelope.token, error: refusal(envelope, later(envelope) ? Unavailable : kind) };
    }
}
function describe(error) {
    const cause = error instanceof Error ? error.cause : undefined;
    const code = cause && typeof cause.code === "string" ? cause.code : undefined;
    return code ?? (error instanceof Error ? error.name : typeof error);
}
/** One call of the client: its body, whose external_transaction_id every repeat shares, and its attempts. */
export class Call {
    action;
    attempts;
    path;
    body;
    constructor(path, action, fields, defaults, attempts) {
        this.action = action;
        this.attempts = attempts;
        this.path = pathOf(path);
        const given = Object.entries(fields).filter(([, value]) => value !== undefined && value !== null);
        const named = new Set(given.map(([name]) => name));
        const defaulted = Object.entries(defaults).filter(([name]) => !named.has(name));
        this.body = { action, ...Object.fromEntries(defaulted), ...Object.fromEntries(given) };
        if (!this.body.external_transaction_id)
            this.body.external_transaction_id = transactionId();
    }
    answered(status, text) {
        let envelope;
        try {
            envelope = readEnvelope(status, text);
        }
        catch {
            return this.attempts.unexpected(status, text);
        }
        if (envelope.msgCode === SUCCESS)
            return { token: envelope.token, done: true, data: envelope.data };
        if (envelope.msgCode === TOKEN_REFUSED && TOKEN_PROBLEMS.has(envelope.msg) && !this.attempts.healed) {
            this.attempts.healed = true; // once: a second refusal is not a stale chain but a real problem
            return { fresh: true, stale: envelope.msg === EXPIRED };
        }
        return this.attempts.refused(envelope, LineupError);
    }
}
/** /authenticate's answer: the new chain's first token and the session's OTP, a repeat, or the error. */
export function authenticated(status, text, attempts) {
    let envelope;
    try {
        envelope = readEnvelope(status, text);
    }
    catch {
        return attempts.unexpected(status, text);
    }
    if (envelope.msgCode === SUCCESS && envelope.token) {
        const data = envelope.data;
        const otp = data?.login_log_otp;
        return { token: envelope.token, done: true, otp: otp === undefined || otp === null ? undefined : String(otp) };
    }
    const step = attempts.refused(envelope, envelope.msgCode === TOKEN_REFUSED ? AuthenticationError : LineupError);
    return { ...step, token: undefined }; // a refused login opens no chain
}
