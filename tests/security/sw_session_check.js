// Runs static/sw.js in Node with a stand-in Cache Storage and fetch (tests/security/test_files.py):
// the worker is told a page opened; /api/v1/me answers with the status given on the command line
// ("offline": no answer). Prints what is left of the saved pages as JSON.
"use strict";
const fs = require("fs");
const vm = require("vm");

const [, , workerPath, answer] = process.argv;
const stores = new Map();
class Store {
  constructor() { this.entries = new Map(); }
  async match(key) { const hit = this.entries.get(typeof key === "string" ? key : key.url); return hit ? hit.clone() : undefined; }
  async put(key, response) { this.entries.set(typeof key === "string" ? key : key.url, response); }
  async delete(key) { return this.entries.delete(typeof key === "string" ? key : key.url); }
  async keys() { return [...this.entries.keys()].map((url) => ({ url })); }
}
const caches = {
  async open(name) { if (!stores.has(name)) stores.set(name, new Store()); return stores.get(name); },
  async delete(name) { return stores.delete(name); },
  async keys() { return [...stores.keys()]; },
  async match() { return undefined; },
};
const asked = [];
async function fetch(address, options) {
  asked.push({ address: String(address), credentials: options && options.credentials });
  if (answer === "offline") throw new TypeError("Failed to fetch");
  return new Response("{}", { status: Number(answer) });
}
const handlers = {};
const self = {
  addEventListener(type, handler) { handlers[type] = handler; },
  location: { origin: "https://hideout.test" },
  registration: {},
  clients: { claim: async () => {} },
  skipWaiting: async () => {},
};
vm.runInNewContext(fs.readFileSync(workerPath, "utf8"), { self, caches, fetch, Response, URL, Promise, console });

(async () => {
  const pages = await caches.open("hideout-pages-v1");
  await pages.put("/__hideout/viewer", new Response("viewer-key"));
  await pages.put("https://hideout.test/campaigns/1", new Response("<html>kept</html>"));
  const waits = [];
  handlers.message({ data: { type: "session" }, ports: [], waitUntil: (p) => waits.push(p) });
  await Promise.all(waits);
  const left = stores.has("hideout-pages-v1") ? (await stores.get("hideout-pages-v1").keys()).map((k) => k.url) : [];
  console.log(JSON.stringify({ asked, left }));
})();
