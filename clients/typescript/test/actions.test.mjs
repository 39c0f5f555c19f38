// Every action of the OpenAPI document has its typed method, named after it in camelCase; the generated types
// and the document are the same version as the package.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { Lineup, VERSION } from "../dist/index.js";

const document = JSON.parse(readFileSync(new URL("../openapi.json", import.meta.url), "utf8"));
const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
const camel = (name) => name.replace(/_([a-z0-9])/g, (_, next) => next.toUpperCase());
const answerName = (name) => name.split("_").map((word) => word[0].toUpperCase() + word.slice(1)).join("") + "Answer";

/** An action is a name of a path's request mapping with an answer schema of its own there (others are aliases). */
function actions() {
  const found = new Set();
  for (const item of Object.values(document.paths)) {
    const operation = item.post ?? {};
    const mapping = operation.requestBody?.content?.["application/json"]?.schema?.discriminator?.mapping ?? {};
    const answers = (operation.responses?.["200"]?.content?.["application/json"]?.schema?.oneOf ?? []).map((ref) =>
      ref.$ref.split("/").at(-1),
    );
    for (const name of Object.keys(mapping)) if (answers.includes(answerName(name))) found.add(name);
  }
  return [...found].sort();
}

test("every action of the document has a method named after it", () => {
  const methods = new Set(Object.getOwnPropertyNames(Object.getPrototypeOf(Lineup.prototype)));
  const listed = actions();
  assert.ok(listed.length >= 30, `${listed.length} actions`);
  assert.deepEqual(listed.filter((name) => !methods.has(camel(name))), []);
  const extra = [...methods].filter((name) => name !== "constructor" && name !== "call");
  assert.deepEqual(extra.sort(), listed.map(camel).sort());
});

test("the package, the generated code and the document are one version", () => {
  assert.equal(VERSION, document.info.version);
  assert.equal(manifest.version, document.info.version);
});
