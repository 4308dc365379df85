// Writes generated/<api>.ts (openapi-typescript `paths`, `components`,
// `operations`) for the APIs this client calls, and for the sandbox's
// test-control API, from the published documents
// in ../../schemas. Not checked in: made from this checkout's schemas on every
// run, so the types cannot go stale. Run from this directory (npm run
// generate): openapi-typescript would otherwise pick up the repository root's
// redocly.yaml, which lists the source documents, not the published bundles.
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";

// sandbox-control: the sandbox's test-control API (`/__sandbox`).
const APIS = ["token", "payment-page", "transaction-status", "pay-later", "order-status", "sandbox-control"];

rmSync("generated", { recursive: true, force: true });
mkdirSync("generated");
for (const api of APIS) {
  execFileSync(
    "node_modules/.bin/openapi-typescript",
    [`../../schemas/${api}/openapi.yaml`, "-o", `generated/${api}.ts`],
    { stdio: ["ignore", "ignore", "inherit"] },
  );
}
console.log(`generated/: types of ${APIS.join(", ")}`);
