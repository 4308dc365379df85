// Tenants of the sandbox through the TypeScript client: the operator creates,
// lists and deletes them; a tenant's control token acts on that tenant alone;
// `scoped` names a tenant for the operator's calls. Against the running
// sandbox of end-to-end.test.ts ($PSI_SANDBOX_URL, $PSI_SANDBOX_CONTROL_TOKEN).
// A sandbox whose `GET /__sandbox` names no `tenant` keeps no tenants: the
// tests that need them are skipped there, with the reason.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { before, describe, test } from "node:test";
import {
  control,
  controlClient,
  createTenant,
  deleteTenant,
  discover,
  forTenant,
  listTenants,
  scoped,
  token,
  withTenant,
  type Sandbox,
} from "../src/sandbox.js";

describe("the tenant parameter", () => {
  test("is added to every tenant-scoped control call", () => {
    assert.equal(withTenant("http://127.0.0.1:8787/__sandbox", "acme-shop"), "http://127.0.0.1:8787/__sandbox?tenant=acme-shop");
    assert.equal(
      withTenant("http://127.0.0.1:8787/__sandbox/sessions?x=1", "acme-shop"),
      "http://127.0.0.1:8787/__sandbox/sessions?x=1&tenant=acme-shop",
    );
  });
  test("is never added to the calls that manage tenants", () => {
    assert.equal(withTenant("http://127.0.0.1:8787/__sandbox/tenants", "acme-shop"), "http://127.0.0.1:8787/__sandbox/tenants");
    assert.equal(
      withTenant("http://127.0.0.1:8787/__sandbox/tenants/t-1", "acme-shop"),
      "http://127.0.0.1:8787/__sandbox/tenants/t-1",
    );
  });
});

describe("tenants against the sandbox", () => {
  let operator: Sandbox;
  let keepsTenants = false;

  before(async () => {
    operator = await discover(process.env.PSI_SANDBOX_URL ?? "http://127.0.0.1:8787", process.env.PSI_SANDBOX_CONTROL_TOKEN || undefined);
    const { data } = await controlClient(operator.url, operator.controlToken).GET("/__sandbox");
    keepsTenants = typeof data?.tenant === "string";
  });

  const needsTenants = (name: string, body: () => Promise<void>) =>
    test(name, async (t) => {
      if (!keepsTenants) {
        t.skip("this sandbox keeps no tenants (GET /__sandbox names no tenant)");
        return;
      }
      await body();
    });

  needsTenants("a tenant is created, acts on itself alone and is deleted", async () => {
    const name = `ts-${randomBytes(6).toString("hex")}`;
    const tenant = await createTenant(operator, name);
    assert.equal(tenant.tenant, name);
    assert.ok(tenant.client_id && tenant.client_secret && tenant.control_token);
    assert.notEqual(tenant.client_id, operator.clientId);

    const own = forTenant(operator, tenant);
    const { data: about } = await control(own).GET("/__sandbox");
    assert.equal(about?.tenant, name);
    assert.equal(about?.client_id, tenant.client_id);
    // Its credentials get tokens.
    assert.ok((await token(own, "payment-page")).length > 0);

    // The operator sees every tenant, the tenant only itself.
    const all = (await listTenants(operator)).map((t) => t.tenant);
    assert.ok(all.includes("demo") && all.includes(name), JSON.stringify(all));
    assert.deepEqual(
      (await listTenants(own)).map((t) => t.tenant),
      [name],
    );

    // The operator names the tenant with ?tenant=.
    const { data: scopedAbout } = await control(scoped(operator, name)).GET("/__sandbox");
    assert.equal(scopedAbout?.tenant, name);

    // A tenant's token creates no tenant, and reaches no other tenant.
    const refused = await control(own).POST("/__sandbox/tenants", { body: {} });
    assert.equal(refused.response.status, 403);
    const other = await control(scoped(own, "demo")).GET("/__sandbox");
    assert.equal(other.response.status, 403);

    // A tenant's reset resets it alone.
    const { data: reset } = await control(own).POST("/__sandbox/reset", { body: {} });
    assert.deepEqual(reset?.tenants, [name]);

    await deleteTenant(operator, name);
    const gone = await control(operator).DELETE("/__sandbox/tenants/{tenant}", {
      params: { path: { tenant: name } },
      body: {},
    });
    assert.equal(gone.response.status, 404);
    const revoked = await control(own).GET("/__sandbox");
    assert.equal(revoked.response.status, 401);
  });

  needsTenants("the sandbox names a tenant created without a name", async () => {
    const tenant = await createTenant(operator);
    assert.match(tenant.tenant, /^t-[0-9a-f]{12}$/);
    await deleteTenant(operator, tenant.tenant);
  });

  needsTenants("the demo tenant stays", async () => {
    const { response } = await control(operator).DELETE("/__sandbox/tenants/{tenant}", {
      params: { path: { tenant: "demo" } },
      body: {},
    });
    assert.equal(response.status, 409);
  });
});
