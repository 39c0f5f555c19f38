// A delivery the sandbox's receiver got from Lineup is verified; a tampered one, another secret, an old one refused.
import assert from "node:assert/strict";
import { test } from "node:test";

import { verifyWebhook } from "../dist/index.js";
import { client, env, line } from "./support.mjs";

async function deliveryFor(enrollmentId) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const all = await (await fetch(`${env.sandboxUrl}/sandbox/webhooks`)).json();
    const found = all.find((item) => JSON.parse(item.body).data.enrollment_id === enrollmentId);
    if (found) return found;
    assert.ok(Date.now() < deadline, "no delivery");
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}

test("a webhook delivery is verified and a tampered one refused", async () => {
  const lineup = client(env.url);
  const slot = await lineup.checkServiceAvailability({ zip_code: "30301" });
  await lineup.createCustomerPrepaidMultiline({ parent_enrollment_id: slot.enrollment_id, lines: [line(slot.enrollment_id)] });
  const { body, headers } = await deliveryFor(slot.enrollment_id);
  const header = headers["lineup-signature"];
  assert.equal(await verifyWebhook(env.webhookSecret, header, body), true);
  assert.equal(await verifyWebhook(env.webhookSecret, header, new TextEncoder().encode(body)), true);
  assert.equal(await verifyWebhook(env.webhookSecret, header, body.replace("line.received", "line.activated")), false);
  assert.equal(await verifyWebhook("whsec_other", header, body), false);
  assert.equal(await verifyWebhook(env.webhookSecret, header, body, -1), false); // too old
  assert.equal(await verifyWebhook(env.webhookSecret, "t=1,v1=zz", body), false);
});
