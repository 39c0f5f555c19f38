/**
 * `Lineup`: each call is sent with a token of its own chain, authenticating when there is none, and follows what
 * ./calls.ts decides after each answer. On the runtime's `fetch` (Node 18+, Deno, Bun, edge runtimes).
 */
import { Actions } from "./actions.js";
import { type Retry } from "./calls.js";
export interface LineupOptions {
    vendorId: string;
    username: string;
    password: string;
    pin: string;
    /** Sent with every call that does not name its own. */
    source?: string;
    /** Sent with every call that does not name its own. */
    agentId?: string;
    /** How long each request may take, in milliseconds (30 s). */
    timeoutMs?: number;
    /** Calls in flight at once, and so token chains (each one /authenticate); more wait for one (8). */
    maxSessions?: number;
    /** How a call that may not have happened is repeated. */
    retry?: Partial<Retry>;
    /** Another fetch (a proxy's, a test's); the runtime's by default. */
    fetch?: typeof fetch;
    /** Where the client says it repeats a call (console.warn by default); never given a field or a token. */
    log?: (message: string) => void;
}
export declare class Lineup extends Actions {
    #private;
    readonly baseUrl: string;
    /** The login-log OTP of the newest session this client opened (check_signature asks for one). */
    loginLogOtp: string | undefined;
    constructor(baseUrl: string, options: LineupOptions);
    /** `data` of the action's answer on RESTAPI000; LineupError (or one of its kinds) otherwise. */
    call(path: string, action: string, fields?: object): Promise<unknown>;
    /** Opens a session now (a new chain, kept for the next call) and returns its login-log OTP. */
    authenticate(): Promise<string | undefined>;
}
