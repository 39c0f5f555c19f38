// Issue 35, item 14: verifyWebhook answers false, and never throws, for any header that is not Lineup's form; the
// header comes from whoever reached the receiver. The same list as tests/clients/test_webhook_signatures.py.
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { test } from "node:test";

import { verifyWebhook } from "../dist/index.js";

const SECRET = "whsec_test";
const BODY = '{"id":"evt_1","type":"line.received"}';
const now = Math.floor(Date.now() / 1000);
const sign = (t, body = BODY) => createHmac("sha256", SECRET).update(`${t}.${body}`).digest("hex");
const good = sign(now);

test("a header Lineup signed is verified, with or without spaces and in either case of hex", async () => {
  assert.equal(await verifyWebhook(SECRET, `t=${now},v1=${good}`, BODY), true);
  assert.equal(await verifyWebhook(SECRET, ` t=${now} , v1=${good.toUpperCase()} `, BODY), true);
  assert.equal(await verifyWebhook(SECRET, `t=${now},v1=${good},v0=other`, BODY), true); // a key of another scheme
});

const MALFORMED = [
  ["a superscript digit for t", `t=²,v1=${good}`],
  ["Arabic-Indic digits for t", `t=${"٣".repeat(10)},v1=${good}`],
  ["a non-ASCII signature", `t=${now},v1=${"é".repeat(64)}`],
  ["a non-ASCII signature of another length", `t=${now},v1=ü${good}`],
  ["a signature too short", `t=${now},v1=${good.slice(2)}`],
  ["a signature too long", `t=${now},v1=${good}00`],
  ["no v1", `t=${now}`],
  ["no t", `v1=${good}`],
  ["empty", ""],
  ["no equals signs", "garbage"],
  ["empty values", "t=,v1="],
  ["a timestamp of 5,000 digits", `t=${"9".repeat(5000)},v1=${good}`],
  ["a signature of a million characters", `t=${now},v1=${"a".repeat(1_000_000)}`],
  ["a negative timestamp", `t=-${now},v1=${good}`],
  ["a fractional timestamp", `t=${now}.0,v1=${good}`],
  ["a timestamp in exponent form", `t=1e9,v1=${good}`],
  ["t twice", `t=${now},t=${now},v1=${good}`],
  ["v1 twice", `t=${now},v1=${good},v1=${good}`],
  ["a NUL", `t=${now}\u0000,v1=${good}`],
  ["a lone surrogate", `t=${now},v1=\ud800${good}`],
  ["null", null],
  ["undefined", undefined],
  ["a number", 12345],
  ["an array of headers", [`t=${now},v1=${good}`]],
];

for (const [name, header] of MALFORMED) {
  test(`a header with ${name} is refused, not thrown on`, async () => {
    assert.equal(await verifyWebhook(SECRET, header, BODY), false);
  });
}
