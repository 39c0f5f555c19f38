// What the tests share: where the Lineup stack is (tests/clients/test_typescript_client.py starts it and passes
// these variables), the demo API user, quick repeats, and a fetch that sees what goes over the wire.
import { Lineup } from "../dist/index.js";

export const env = {
  url: process.env.LINEUP_URL ?? "",
  proxyUrl: process.env.LINEUP_PROXY_URL ?? "",
  sandboxUrl: process.env.LINEUP_SANDBOX_URL ?? "",
  webhookSecret: process.env.LINEUP_WEBHOOK_SECRET ?? "",
};

export const CREDENTIALS = { vendorId: "DEMO", username: "demo.api", password: "demo-pass-1", pin: "1234" };
export const QUICK = { repeats: 3, backoffMs: 50, maxBackoffMs: 200 };

/** What one client sent and was answered. */
export class Wire {
  paths = [];
  tokens = [];
  transactionIds = [];

  get logins() {
    return this.paths.filter((path) => path === "/authenticate").length;
  }

  /** A fetch that records each request's path and external_transaction_id, and each answer's token. */
  fetch(inner = fetch) {
    return async (input, init) => {
      const path = new URL(String(input)).pathname;
      this.paths.push(path);
      if (path !== "/authenticate") this.transactionIds.push(JSON.parse(init.body).external_transaction_id);
      const response = await inner(input, init);
      const text = await response.clone().text();
      try {
        const token = JSON.parse(text).token;
        if (token) this.tokens.push(token);
      } catch {
        // not the envelope: the client's to judge
      }
      return response;
    };
  }
}

export function client(url, options = {}) {
  const quiet = () => {};
  return new Lineup(url, { ...CREDENTIALS, source: "API", agentId: "demo.agent", retry: QUICK, log: quiet, ...options });
}

/** One line of create_customer_prepaid_multiline, shipped, with an e-mail of its own. */
export function line(enrollmentId) {
  return {
    enrollment_id: enrollmentId, first_name: "Pat", last_name: "Lee", email: `pat.${enrollmentId.toLowerCase()}@example.com`,
    password: "line-pass-1", service_address_one: "12 Main St", service_city: "Atlanta", service_state: "GA",
    service_zip: "30301", plan_id: "102", activation_type: "NEWACTIVATION", enrollment_type: "SHIPMENT",
  };
}
