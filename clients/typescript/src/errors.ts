/**
 * What the client throws. Every message is built from Lineup's own words (msgCode, msg, errors) or the start of an
 * answer that was not Lineup's; never from what the call sent, so no password, PIN, card or token can end up in an
 * error's text or a log line.
 */

/** Anything the client throws. */
export class ClientError extends Error {
  override name = "ClientError";
}

/** Lineup answered with a refusal: `msgCode` (RESTAPI…), `msg` and Lineup's own `errors`. */
export class LineupError extends ClientError {
  override name = "LineupError";
  readonly msgCode: string;
  readonly msg: string;
  readonly errors: string[];
  /** What some refusals show beside the message (a blacklisted device's details). */
  readonly data: unknown;
  /** The HTTP status (200 for every envelope unless Lineup runs in `rest` mode). */
  readonly status: number | undefined;

  constructor(msgCode: string, msg: string, errors: string[] = [], data?: unknown, status?: number) {
    super(`${msgCode} ${msg}` + (errors.length ? `: ${errors.join("; ")}` : ""));
    this.msgCode = msgCode;
    this.msg = msg;
    this.errors = errors;
    this.data = data;
    this.status = status;
  }
}

/**
 * /authenticate refused the vendor, username, password and PIN (or throttled the login); never repeated, so a
 * wrong password is one error and not a loop that locks the login.
 */
export class AuthenticationError extends LineupError {
  override name = "AuthenticationError";
}

/** Lineup still said "try again later" (an outside system, or its database, down) after every repeat. */
export class Unavailable extends LineupError {
  override name = "Unavailable";
}

/** Characters of a body that is not the envelope quoted in the error: enough to recognise the page. */
const QUOTED = 200;

/** The answer was not Lineup's envelope (a proxy's error page, say): `status` and the `start` of its body. */
export class UnexpectedAnswer extends ClientError {
  override name = "UnexpectedAnswer";
  readonly status: number;
  readonly start: string;

  constructor(status: number, body: string) {
    const start = body.slice(0, QUOTED * 4).split(/\s+/).filter(Boolean).join(" ").slice(0, QUOTED);
    super(`HTTP ${status} is not Lineup's envelope: ${JSON.stringify(start)}`);
    this.status = status;
    this.start = start;
  }
}

/** No answer: the connection could not be made or was lost before the answer, after every repeat. */
export class ConnectionFailed extends ClientError {
  override name = "ConnectionFailed";
}

/** No answer within the client's `timeoutMs`, after every repeat. */
export class TimedOut extends ConnectionFailed {
  override name = "TimedOut";
}
