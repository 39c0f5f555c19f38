/**
 * What a call does, without any I/O: the body it sends, the envelope read from an answer, and what comes next
 * after each answer or lost connection (return, heal the token chain, repeat later, or give up). The same rules as
 * the Python client's lineup_client/_calls.py; Lineup's side of them is in docs/clients.md.
 */
import { ClientError, LineupError } from "./errors.js";
export declare const SUCCESS = "RESTAPI000";
/**
 * How a call that may not have happened is repeated: at most `repeats` more times, waiting `backoffMs` doubling up
 * to `maxBackoffMs` (each wait drawn between half and all of it, so callers that failed together do not come back
 * together).
 */
export interface Retry {
    repeats: number;
    backoffMs: number;
    maxBackoffMs: number;
}
export declare const RETRY: Retry;
interface Envelope {
    status: number;
    msgCode: string;
    msg: string;
    errors: string[];
    token: string | undefined;
    data: unknown;
}
/** What a call does after one answer or lost connection. */
export interface Step {
    /** The chain's next token: back to the pool. */
    token?: string;
    /** `data` is the call's result. */
    done?: boolean;
    data?: unknown;
    /** Otherwise the request goes again after this long… */
    waitMs?: number;
    /** …on a chain of its own, just authenticated (its token was refused). */
    fresh?: boolean;
    /** The newest idle token expired, so every idle one did: drop them. */
    stale?: boolean;
    /** Or the call ends with this. */
    error?: ClientError;
    /** /authenticate's answer: the session's login-log OTP. */
    otp?: string;
}
/** An external_transaction_id of the client's making: letters and digits, 32 of them. */
export declare function transactionId(): string;
/** `plan`, `/plan` and `/plan/` are one path, whatever the base URL ends with. */
export declare function pathOf(path: string): string;
/** What is left of one call's repeats, and why it is on the next one. */
export declare class Attempts {
    readonly retry: Retry;
    /** `/customer create_customer_prepaid_multiline`, for the log: never the body. */
    readonly what: string;
    readonly log: (message: string) => void;
    repeats: number;
    healed: boolean;
    constructor(retry: Retry, 
    /** `/customer create_customer_prepaid_multiline`, for the log: never the body. */
    what: string, log: (message: string) => void);
    /** The wait before one more repeat, or undefined when there is none left. */
    again(reason: string): number | undefined;
    /** No answer: the request may or may not have reached Lineup, so it goes again with the same id (and a chain
     * of its own: the token it carried may be spent). */
    lost(error: unknown, timedOut: boolean): Step;
    /** An answer that is not the envelope: a gateway's "come back later" is repeated, anything else thrown. */
    unexpected(status: number, text: string): Step;
    /** After a refusal Lineup may take back later: a repeat while some are left, else `kind` thrown. */
    refused(envelope: Envelope, kind: typeof LineupError): Step;
}
/** One call of the client: its body, whose external_transaction_id every repeat shares, and its attempts. */
export declare class Call {
    readonly action: string;
    readonly attempts: Attempts;
    readonly path: string;
    readonly body: Record<string, unknown>;
    constructor(path: string, action: string, fields: object, defaults: Record<string, string>, attempts: Attempts);
    answered(status: number, text: string): Step;
}
/** /authenticate's answer: the new chain's first token and the session's OTP, a repeat, or the error. */
export declare function authenticated(status: number, text: string, attempts: Attempts): Step;
export {};
