/**
 * `Lineup`: each call is sent with a token of its own chain, authenticating when there is none, and follows what
 * ./calls.ts decides after each answer. On the runtime's `fetch` (Node 18+, Deno, Bun, edge runtimes).
 */
import { Actions, VERSION } from "./actions.js";
import { Attempts, Call, RETRY, authenticated } from "./calls.js";
import { UnexpectedAnswer } from "./errors.js";
const AUTHENTICATE = "/authenticate";
/** At most `free` holders at once; the others wait in line. */
class Sessions {
    free;
    waiting = [];
    constructor(free) {
        this.free = free;
    }
    async acquire() {
        if (this.free > 0) {
            this.free -= 1;
            return;
        }
        await new Promise((resolve) => this.waiting.push(resolve));
    }
    release() {
        const next = this.waiting.shift();
        if (next)
            next();
        else
            this.free += 1;
    }
}
/** A 3xx answer, or the opaque one a browser's fetch gives for it under `redirect: "manual"` (status 0). */
const isRedirect = (response) => response.type === "opaqueredirect" || (response.status >= 300 && response.status < 400);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
export class Lineup extends Actions {
    baseUrl;
    /** The login-log OTP of the newest session this client opened (check_signature asks for one). */
    loginLogOtp;
    #login;
    #defaults;
    #retry;
    #timeoutMs;
    #fetch;
    #log;
    #sessions;
    /** Idle chains' next tokens, newest last (the newest is the least likely to have expired). */
    #idle = [];
    constructor(baseUrl, options) {
        super();
        this.baseUrl = baseUrl.replace(/\/+$/, ""); // with or without a trailing slash, and with any base path
        const { vendorId, username, password, pin } = options;
        this.#login = JSON.stringify({ vendor_id: vendorId, username, password, pin });
        const defaults = [["source", options.source], ["agent_id", options.agentId]];
        this.#defaults = Object.fromEntries(defaults.filter((entry) => !!entry[1]));
        this.#retry = { ...RETRY, ...options.retry };
        this.#timeoutMs = options.timeoutMs ?? 30_000;
        this.#fetch = options.fetch ?? ((input, init) => fetch(input, init));
        this.#log = options.log ?? ((message) => console.warn(`lineup: ${message}`));
        this.#sessions = new Sessions(options.maxSessions ?? 8);
    }
    /** `data` of the action's answer on RESTAPI000; LineupError (or one of its kinds) otherwise. */
    async call(path, action, fields = {}) {
        const attempts = new Attempts(this.#retry, `${path} ${action}`, this.#log);
        const call = new Call(path, action, fields, this.#defaults, attempts);
        await this.#sessions.acquire();
        try {
            let step = {};
            for (;;) {
                const token = (step.fresh ? undefined : this.#idle.pop()) ?? (await this.#authenticate(attempts));
                step = await this.#post(call.path, call.body, token, attempts, (status, text) => call.answered(status, text));
                if (this.#settle(step))
                    return step.data;
                await sleep(step.waitMs ?? 0);
            }
        }
        finally {
            this.#sessions.release();
        }
    }
    /** Opens a session now (a new chain, kept for the next call) and returns its login-log OTP. */
    async authenticate() {
        this.#idle.push(await this.#authenticate(new Attempts(this.#retry, AUTHENTICATE, this.#log)));
        return this.loginLogOtp;
    }
    async #authenticate(attempts) {
        for (;;) {
            const step = await this.#post(AUTHENTICATE, this.#login, undefined, attempts, (status, text) => authenticated(status, text, attempts));
            if (step.error)
                throw step.error;
            if (step.done && step.token) {
                this.loginLogOtp = step.otp ?? this.loginLogOtp;
                return step.token;
            }
            await sleep(step.waitMs ?? 0);
        }
    }
    /** One POST within the timeout (the body read included); a lost connection is the attempts' to judge. */
    async #post(path, body, token, attempts, answered) {
        const headers = { "content-type": "application/json", "user-agent": `lineup-client-typescript/${VERSION}` };
        if (token)
            headers.token = token;
        const abort = new AbortController();
        const timer = setTimeout(() => abort.abort(), this.#timeoutMs);
        try {
            const json = typeof body === "string" ? body : JSON.stringify(body);
            // A redirect is never followed, to another origin or this one: fetch would send the body (the password and
            // PIN of /authenticate) and the token header on to wherever the answer points.
            const init = { method: "POST", headers, body: json, signal: abort.signal, redirect: "manual" };
            const response = await this.#fetch(this.baseUrl + path, init);
            if (isRedirect(response)) {
                await response.body?.cancel().catch(() => undefined); // the connection, not the page, is wanted
                const location = response.headers.get("location") ?? "another URL";
                return { error: new UnexpectedAnswer(response.status, `a redirect to ${location}, not followed`) };
            }
            return answered(response.status, await response.text());
        }
        catch (error) {
            return attempts.lost(error, abort.signal.aborted);
        }
        finally {
            clearTimeout(timer);
        }
    }
    /** Puts the chain's next token back, throws the call's error; true when the call is over. */
    #settle(step) {
        if (step.stale)
            this.#idle.length = 0;
        if (step.token)
            this.#idle.push(step.token);
        if (step.error)
            throw step.error;
        return step.done ?? false;
    }
}
