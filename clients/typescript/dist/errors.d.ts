/**
 * What the client throws. Every message is built from Lineup's own words (msgCode, msg, errors) or the start of an
 * answer that was not Lineup's; never from what the call sent, so no password, PIN, card or token can end up in an
 * error's text or a log line.
 */
/** Anything the client throws. */
export declare class ClientError extends Error {
    name: string;
}
/** Lineup answered with a refusal: `msgCode` (RESTAPI…), `msg` and Lineup's own `errors`. */
export declare class LineupError extends ClientError {
    name: string;
    readonly msgCode: string;
    readonly msg: string;
    readonly errors: string[];
    /** What some refusals show beside the message (a blacklisted device's details). */
    readonly data: unknown;
    /** The HTTP status (200 for every envelope unless Lineup runs in `rest` mode). */
    readonly status: number | undefined;
    constructor(msgCode: string, msg: string, errors?: string[], data?: unknown, status?: number);
}
/**
 * /authenticate refused the vendor, username, password and PIN (or throttled the login); never repeated, so a
 * wrong password is one error and not a loop that locks the login.
 */
export declare class AuthenticationError extends LineupError {
    name: string;
}
/** Lineup still said "try again later" (an outside system, or its database, down) after every repeat. */
export declare class Unavailable extends LineupError {
    name: string;
}
/** The answer was not Lineup's envelope (a proxy's error page, say): `status` and the `start` of its body. */
export declare class UnexpectedAnswer extends ClientError {
    name: string;
    readonly status: number;
    readonly start: string;
    constructor(status: number, body: string);
}
/** No answer: the connection could not be made or was lost before the answer, after every repeat. */
export declare class ConnectionFailed extends ClientError {
    name: string;
}
/** No answer within the client's `timeoutMs`, after every repeat. */
export declare class TimedOut extends ConnectionFailed {
    name: string;
}
