// Stores COUNT transactions in the sandbox at URL through its control API
// (POST /__sandbox/transactions), 32 at a time over kept-alive
// connections: ids 12-00000000000000000 upwards, each the order of
// session-request.json with its own references (as a merchant's orders
// would be). Any answer but 201 stops it with the status and body.
//
// node seed.mjs URL COUNT SESSION_REQUEST_FILE
import http from "node:http";
import fs from "node:fs";

const [url, countText, requestFile] = process.argv.slice(2);
const count = Number(countText);
const order = JSON.parse(fs.readFileSync(requestFile, "utf8")).order_data;
const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
const target = new URL("/__sandbox/transactions", url);

function body(index) {
  const own = structuredClone(order);
  own.partner_transaction_id = `order-${index}`;
  for (const basket of own.shop_baskets) basket.shop_transaction_id = `SO-${index}`;
  const id = `12-${String(index).padStart(17, "0")}`;
  return JSON.stringify({ transaction_id: id, order_data: own });
}

function store(index) {
  return new Promise((resolve, reject) => {
    const payload = body(index);
    const request = http.request(
      target,
      { method: "POST", agent, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(payload) } },
      (response) => {
        const chunks = [];
        response.on("data", (chunk) => chunks.push(chunk));
        response.on("end", () => {
          if (response.statusCode === 201) resolve();
          else reject(new Error(`transaction ${index}: ${response.statusCode} ${Buffer.concat(chunks)}`));
        });
      },
    );
    request.on("error", reject);
    request.end(payload);
  });
}

let next = 0;
async function worker() {
  while (next < count) await store(next++);
}
const started = Date.now();
try {
  await Promise.all(Array.from({ length: 32 }, worker));
} catch (error) {
  console.error(`seed: ${error.message}`);
  process.exit(1);
}
agent.destroy();
console.log(`stored ${count} transactions in ${((Date.now() - started) / 1000).toFixed(1)} s`);
