// Failures a channel meets on the way to Lineup, with stand-ins for it: a server that never answers, an answer
// that is not the envelope, and "try again later" repeated with the same external_transaction_id.
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { test } from "node:test";

import { TimedOut, UnexpectedAnswer } from "../dist/index.js";
import { client } from "./support.mjs";

const json = (body, status = 200) => new Response(JSON.stringify(body), { status });
const LOGGED_IN = { msg_code: "RESTAPI000", msg: "ok", token: "t1", data: { login_log_otp: "123456" } };

test("a server that never answers times out within the limit", async () => {
  const silent = createServer(() => {}); // takes the connection, never answers
  await new Promise((resolve) => silent.listen(0, "127.0.0.1", resolve));
  const started = Date.now();
  try {
    const lineup = client(`http://127.0.0.1:${silent.address().port}`, { timeoutMs: 300 });
    const failed = await lineup.planList().catch((error) => error);
    assert.ok(failed instanceof TimedOut, String(failed));
    assert.equal(failed.message, "/plan plan_list: no answer in time, 3 repeats spent");
    assert.ok(Date.now() - started < 3000); // 4 attempts of 0.3 s and the waits between them
  } finally {
    silent.closeAllConnections?.();
    silent.close();
  }
});

for (const [status, sent] of [[200, 1], [502, 4]]) {
  test(`an answer that is not the envelope is quoted (HTTP ${status})`, async () => {
    const page = "<html>\n<head><title>Bad Gateway</title></head>\n<body>" + "nginx ".repeat(100) + "</body></html>";
    const paths = [];
    const proxy = async (input) => {
      const path = new URL(String(input)).pathname;
      paths.push(path);
      return path === "/authenticate" ? json(LOGGED_IN) : new Response(page, { status });
    };
    const failed = await client("http://lineup.test", { fetch: proxy }).planList().catch((error) => error);
    assert.ok(failed instanceof UnexpectedAnswer);
    assert.ok(failed.message.startsWith(`HTTP ${status} is not Lineup's envelope: "<html> <head><title>Bad Gateway`));
    assert.equal(failed.start.length, 200);
    assert.equal(paths.filter((path) => path === "/plan").length, sent);
  });
}

test("try again later is repeated with the same external_transaction_id", async () => {
  const answers = [
    { msg_code: "RESTAPI110", msg: "Error occurred", token: "t2", errors: ["The carrier is unavailable, please try again later"] },
    { msg_code: "RESTAPI000", msg: "Success", token: "t3", data: { STATUSCODE: "00" } },
  ];
  const sent = [];
  const lineupSide = async (input, init) => {
    if (new URL(String(input)).pathname === "/authenticate") return json(LOGGED_IN);
    sent.push({ token: init.headers.token, ...JSON.parse(init.body) });
    return json(answers.shift());
  };
  const lineup = client("http://lineup.test", { fetch: lineupSide });
  assert.deepEqual(await lineup.call("/inventory", "check_device_compatibility", { imei: "1" }), { STATUSCODE: "00" });
  assert.deepEqual(sent.map((body) => body.token), ["t1", "t2"]); // the outage answer's token carried the chain on
  assert.equal(sent[0].external_transaction_id, sent[1].external_transaction_id);
  assert.match(sent[0].external_transaction_id, /^[A-Za-z0-9]{1,64}$/);
  assert.equal(sent[0].source, "API");
  assert.equal(lineup.loginLogOtp, "123456");
});

test("a 503 (rest mode, the database down) is repeated on a session of its own", async () => {
  const down = { msg_code: "RESTAPI110", msg: "Error occurred", errors: ["The database is unavailable, please try again later"] };
  const answers = [json(down, 503), json({ msg_code: "RESTAPI000", msg: "Success", token: "t3", data: {} })];
  const logins = ["t1", "t1b"];
  const sent = [];
  const lineupSide = async (input, init) => {
    if (new URL(String(input)).pathname === "/authenticate") return json({ ...LOGGED_IN, token: logins.shift() });
    sent.push({ token: init.headers.token, ...JSON.parse(init.body) });
    return answers.shift();
  };
  assert.deepEqual(await client("http://lineup.test", { fetch: lineupSide }).planList(), {});
  assert.deepEqual(sent.map((body) => body.token), ["t1", "t1b"]); // no token in the outage answer: a new chain
  assert.equal(sent[0].external_transaction_id, sent[1].external_transaction_id);
});

test("a caller's own external_transaction_id is kept", async () => {
  const sent = [];
  const lineupSide = async (input, init) => {
    if (new URL(String(input)).pathname === "/authenticate") return json(LOGGED_IN);
    sent.push(JSON.parse(init.body));
    return json({ msg_code: "RESTAPI000", msg: "Success", token: "t2", data: [] });
  };
  await client("http://lineup.test", { fetch: lineupSide }).planList({ external_transaction_id: "ORDER42" });
  assert.equal(sent[0].external_transaction_id, "ORDER42");
});
