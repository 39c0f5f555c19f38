// Issue 35, finding 5: a Lineup URL that answers a redirect. The client follows none, so the login (password,
// PIN), a call's body and its token go to the base URL and nowhere else; the redirect is an UnexpectedAnswer.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { test } from "node:test";

import { UnexpectedAnswer } from "../dist/index.js";
import { client } from "./support.mjs";

const LOGGED_IN = { msg_code: "RESTAPI000", msg: "ok", token: "t1", data: { login_log_otp: "123456" } };

/** An HTTP server on a port of its own (so an origin of its own) that records each request it gets. */
async function server(answer) {
  const seen = [];
  const http = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => (body += chunk));
    request.on("end", () => {
      seen.push({ path: request.url, token: request.headers.token, body });
      answer(request, response);
    });
  });
  await new Promise((resolve) => http.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${http.address().port}`;
  const close = () => {
    http.closeAllConnections?.();
    http.close();
  };
  return { url, seen, close };
}

const redirect = (response, location, status = 307) => response.writeHead(status, { location }).end();

/** Lineup's side: /authenticate answers a token; `redirected` paths answer a redirect to `to()`. */
async function lineup(redirected, to, status) {
  return server((request, response) => {
    if (redirected.includes(request.url)) return redirect(response, to() + request.url, status);
    response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(LOGGED_IN));
  });
}

for (const status of [301, 302, 303, 307, 308]) {
  test(`the login is never sent on to another origin (HTTP ${status})`, async () => {
    const elsewhere = await server((_, response) => response.writeHead(200).end("{}"));
    const origin = await lineup(["/authenticate"], () => elsewhere.url, status);
    try {
      const failed = await client(origin.url).planList().catch((error) => error);
      assert.ok(failed instanceof UnexpectedAnswer, String(failed));
      assert.equal(failed.status, status);
      assert.match(failed.message, /redirect to http:\/\/127\.0\.0\.1:\d+\/authenticate, not followed/);
      assert.deepEqual(elsewhere.seen, []); // no password, no PIN
      assert.equal(origin.seen.length, 1); // and not repeated
    } finally {
      origin.close();
      elsewhere.close();
    }
  });
}

test("a call's body and token are never sent on to another origin", async () => {
  const elsewhere = await server((_, response) => response.writeHead(200).end("{}"));
  const origin = await lineup(["/plan"], () => elsewhere.url, 307);
  try {
    const failed = await client(origin.url).planList().catch((error) => error);
    assert.ok(failed instanceof UnexpectedAnswer, String(failed));
    assert.deepEqual(elsewhere.seen, []);
    assert.deepEqual(origin.seen.map((request) => [request.path, request.token]), [["/authenticate", undefined], ["/plan", "t1"]]);
  } finally {
    origin.close();
    elsewhere.close();
  }
});

test("a redirect within the same origin is not followed either", async () => {
  const origin = await lineup(["/authenticate"], () => origin.url + "/v2", 308);
  try {
    const failed = await client(origin.url).planList().catch((error) => error);
    assert.ok(failed instanceof UnexpectedAnswer, String(failed));
    assert.deepEqual(origin.seen.map((request) => request.path), ["/authenticate"]);
  } finally {
    origin.close();
  }
});
