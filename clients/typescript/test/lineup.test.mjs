// The client against a running Lineup: a whole enrollment with no token handling, 20 concurrent calls on one
// client, a token spent elsewhere healed, a create whose answer was lost repeated into one customer, a wrong
// password, a refused field.
import assert from "node:assert/strict";
import { test } from "node:test";

import { AuthenticationError, LineupError } from "../dist/index.js";
import { Wire, client, env, line } from "./support.mjs";

test("a whole enrollment, with no token in sight", async () => {
  const lineup = client(env.url + "/"); // a trailing slash changes nothing
  const slot = await lineup.checkServiceAvailability({ zip_code: "30301" });
  const plans = await lineup.planList();
  assert.ok(plans.some((plan) => plan.plan_id === "102"));
  const paid = await lineup.makePayment({
    enrollment_id: slot.enrollment_id, plan_id: "102", card_number: "4111111111111111", exp_month: "12",
    exp_year: "2030", cvv: "123", name_on_card: "Pat Lee", address1: "12 Main St", city: "Atlanta", state: "GA",
    zip: "30301", save_card: "Y",
  });
  const [created] = await lineup.createCustomerPrepaidMultiline({
    parent_enrollment_id: slot.enrollment_id, invoice_number: paid.invoice_number, lines: [line(slot.enrollment_id)],
  });
  assert.equal(created.msg_code, "RESTAPI000");
  assert.equal(created.data.invoice_number, paid.invoice_number);
  const inquiry = await lineup.lineInquiry({ enrollment_id: slot.enrollment_id });
  assert.equal(inquiry.MDN, created.data.mdn);
  assert.match(lineup.loginLogOtp ?? "", /^\d{6}$/);
});

test("20 concurrent calls share one client", async () => {
  const wire = new Wire();
  const lineup = client(env.url, { fetch: wire.fetch() });
  const slots = await Promise.all(Array.from({ length: 20 }, () => lineup.checkServiceAvailability({ zip_code: "30301" })));
  assert.equal(new Set(slots.map((slot) => slot.enrollment_id)).size, 20);
  assert.ok(wire.logins >= 1 && wire.logins <= 8, `${wire.logins} logins`); // a chain per caller, at most 8
  await Promise.all(Array.from({ length: 20 }, () => lineup.planList()));
  assert.ok(wire.logins <= 8, "the second round reused the chains");
});

test("a token spent elsewhere is healed by authenticating once more", async () => {
  const wire = new Wire();
  const lineup = client(env.url, { fetch: wire.fetch() });
  await lineup.planList();
  const spent = await fetch(`${env.url}/plan`, {
    method: "POST", headers: { "content-type": "application/json", token: wire.tokens.at(-1) },
    body: JSON.stringify({ action: "plan_list", source: "API", agent_id: "demo.agent" }),
  });
  assert.equal((await spent.json()).msg_code, "RESTAPI000");
  assert.ok((await lineup.planList()).length > 0);
  assert.deepEqual(wire.paths, ["/authenticate", "/plan", "/plan", "/authenticate", "/plan"]);
});

test("a create whose answer was lost is repeated with the same id and makes one customer", async () => {
  const wire = new Wire();
  const lineup = client(env.proxyUrl, { fetch: wire.fetch() }); // the proxy cuts the first create's answer
  const slot = await lineup.checkServiceAvailability({ zip_code: "30301" });
  const [created] = await lineup.createCustomerPrepaidMultiline({
    parent_enrollment_id: slot.enrollment_id, lines: [line(slot.enrollment_id)],
  });
  assert.equal(created.data.enrollment_id, slot.enrollment_id);
  const creates = wire.paths.filter((path) => path === "/customer").length;
  assert.equal(creates, 2, "sent, its answer lost, sent again");
  assert.equal(wire.transactionIds.at(-1), wire.transactionIds.at(-2));
  const customers = await lineup.customerInfo({ email: line(slot.enrollment_id).email });
  assert.equal(customers.length, 1);
});

test("a wrong password is one clear error, and no loop", async () => {
  const wire = new Wire();
  const lineup = client(env.url, { fetch: wire.fetch(), password: "not-the-password-9" });
  const refused = await lineup.planList().catch((error) => error);
  assert.ok(refused instanceof AuthenticationError);
  assert.equal(refused.msgCode, "RESTAPI001");
  assert.equal(refused.msg, "Invalid credentials!!");
  assert.deepEqual(wire.paths, ["/authenticate"]);
  assert.ok(!`${refused.message} ${refused.stack} ${JSON.stringify(refused)}`.includes("not-the-password-9"));
});

test("a refused field is Lineup's own errors", async () => {
  const lineup = client(env.url);
  const refused = await lineup.checkServiceAvailability({ zip_code: "ABCDE" }).catch((error) => error);
  assert.ok(refused instanceof LineupError);
  assert.equal(refused.msgCode, "RESTAPI110");
  assert.ok(refused.errors.length > 0 && refused.errors.every((text) => typeof text === "string"));
  assert.ok(refused.message.startsWith(`RESTAPI110 ${refused.msg}: ${refused.errors[0]}`));
});
