// At the table without a connection (issue 33, SPEC R12.1). The service worker keeps the battle
// page once opened (static/sw.js); offline, this file keeps every tap on the clock, a result, a
// confirmation or a dispute on the phone (IndexedDB), each with its own Idempotency-Key (R11.6),
// runs the clock locally from its last state, and says how many taps wait. When the connection
// returns (the `online` event, the next page load, or Background Sync in the worker, which loads
// this file too) the taps go to the API in the order they were made, each once; the page then
// shows what the server took and what it refused, with the server's own reason, and the
// server's page. The server stays the authority: a tap refused there changes nothing.
(() => {
  "use strict";
  const DB = "hideout-table";
  const TAPS = "taps";
  const DONE = "done";
  const LOCK = "hideout-taps";
  const SYNC = "hideout-taps";
  const inWorker = typeof window === "undefined";

  // --- the phone's store -----------------------------------------------------------------

  function open() {
    return new Promise((resolve, reject) => {
      const request = indexedDB.open(DB, 1);
      request.onupgradeneeded = () => {
        request.result.createObjectStore(TAPS, { keyPath: "seq", autoIncrement: true });
        request.result.createObjectStore(DONE, { keyPath: "seq", autoIncrement: true });
      };
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
  }

  async function run(store, mode, work) {
    const db = await open();
    return new Promise((resolve, reject) => {
      const tx = db.transaction(store, mode);
      let result;
      const request = work(tx.objectStore(store));
      if (request) request.onsuccess = () => { result = request.result; };
      tx.oncomplete = () => { db.close(); resolve(result); };
      tx.onerror = () => { db.close(); reject(tx.error); };
    });
  }

  const all = (store) => run(store, "readonly", (s) => s.getAll());
  const put = (store, value) => run(store, "readwrite", (s) => s.add(value));
  const drop = (store, key) => run(store, "readwrite", (s) => s.delete(key));

  // --- sending, in order, each once --------------------------------------------------------

  async function sendAll() {
    for (const tap of await all(TAPS)) {
      let response;
      try {
        response = await fetch(tap.url, {
          method: "POST",
          credentials: "same-origin",
          headers: {
            "Content-Type": "application/json",
            Accept: "application/json",
            "X-CSRF-Token": tap.csrf,
            "Idempotency-Key": tap.key,
          },
          body: JSON.stringify(tap.body),
        });
      } catch (_e) {
        return false; // still offline: this one and the rest wait, in order
      }
      if (response.status >= 500) return false; // the server is unwell: try again later
      let message = "";
      if (!response.ok) {
        try { message = (await response.json()).error.message || ""; } catch (_e) { message = String(response.status); }
      }
      await put(DONE, { battle: tap.battle, kind: tap.kind, took: response.ok, message });
      await drop(TAPS, tap.seq);
    }
    return true;
  }

  function replay() {
    // One sender at a time, page or worker: the worker's Background Sync and the page's
    // `online` may both start; the second finds the taps already sent.
    return navigator.locks ? navigator.locks.request(LOCK, sendAll) : sendAll();
  }

  if (inWorker) {
    self.addEventListener("sync", (event) => {
      if (event.tag !== SYNC) return;
      event.waitUntil(replay().then(async (sent) => {
        for (const client of await self.clients.matchAll({ type: "window" })) client.postMessage({ type: "taps-sent", sent });
      }));
    });
    return;
  }

  // --- the battle page ---------------------------------------------------------------------

  const root = document.getElementById("table-offline");
  if (!root) return;
  const cid = root.dataset.cid;
  const bid = Number(root.dataset.bid);
  const base = `/campaigns/${cid}/battles/${bid}`;
  const ROUTE = new RegExp(`^/campaigns/${cid}/battles/${bid}/(clock|result|confirm|dispute)$`);
  const MODEL = `hideout-clock-${bid}`;
  const say = (template, params) => template.replace(/%\((\w+)\)[sd]/g, (_m, k) => String(params[k]));

  function plural(n) {
    // The page gives the sentence for 1, 2 and 5 (one, few and many in every language it
    // speaks); the number in it is replaced.
    let category = "other";
    try { category = new Intl.PluralRules(document.documentElement.lang || "en").select(n); } catch (_e) { /* en */ }
    const [template, shown] = category === "one" ? [root.dataset.n1, "1"] : category === "few" ? [root.dataset.n2, "2"] : [root.dataset.n5, "5"];
    return template.replace(shown, String(n));
  }

  const offline = () => !navigator.onLine;
  const csrf = () => (document.querySelector("input[name=csrf_token]") || {}).value || "";
  const uuid = () => (crypto.randomUUID ? crypto.randomUUID() : `${Date.now()}-${Math.random().toString(16).slice(2)}`);

  async function waiting() {
    return (await all(TAPS)).filter((t) => t.battle === bid).length;
  }

  async function show() {
    const n = await waiting();
    const line = root.querySelector("[data-waiting]");
    line.textContent = n ? plural(n) : "";
    root.hidden = !n && !root.querySelector("[data-sent]").textContent;
  }

  async function keep(kind, path, body) {
    await put(TAPS, { battle: bid, kind, url: `/api/v1${path}`, body, key: uuid(), csrf: csrf(), at: Date.now() });
    await show();
    // Not awaited: a page the worker does not control yet never gets `ready`.
    if (navigator.serviceWorker) {
      navigator.serviceWorker.ready
        .then((registration) => registration.sync && registration.sync.register(SYNC))
        .catch(() => { /* no Background Sync here: `online` and the next page load send them */ });
    }
  }

  // --- the clock, run on the phone ---------------------------------------------------------

  function modelFromPage() {
    const clock = document.getElementById("clock");
    if (!clock || !clock.dataset.sides) return null;
    const sides = JSON.parse(clock.dataset.sides);
    const left = JSON.parse(clock.dataset.remaining);
    return {
      status: clock.dataset.status,
      running: clock.dataset.running === "" ? null : Number(clock.dataset.running),
      order: JSON.parse(clock.dataset.order || "[]"),
      turn: Number(clock.dataset.turn),
      maxTurns: Number(clock.dataset.maxTurns),
      version: Number(clock.dataset.version),
      names: JSON.parse(clock.dataset.names),
      remaining: Object.fromEntries(sides.map((s, i) => [s, left[i]])),
      at: Date.now(),
    };
  }

  function loadModel() {
    try { return JSON.parse(localStorage.getItem(MODEL) || "null"); } catch (_e) { return null; }
  }

  function charge(model, now) {
    // The running side's time goes on while it plays (the phone's own clock, as the page's).
    if (model.status === "running" && model.remaining[model.running] != null) {
      model.remaining[model.running] = Math.max(0, model.remaining[model.running] - (now - model.at));
    }
    model.at = now;
  }

  function apply(model, tap) {
    charge(model, Date.now());
    if (tap.action === "start" && model.status === "ready") {
      const sides = Object.keys(model.remaining).map(Number);
      const first = tap.side == null ? sides[0] : Number(tap.side);
      model.order = [first, ...sides.filter((s) => s !== first)];
      Object.assign(model, { status: "running", running: first, turn: 1 });
    } else if (tap.action === "start") {
      model.status = "running";
    } else if (tap.action === "switch") {
      const at = model.order.indexOf(model.running);
      const next = model.order[(at + 1) % model.order.length];
      if (at === model.order.length - 1) model.turn += 1;
      model.running = next;
    } else if (tap.action === "pause") {
      model.status = "paused";
    }
    model.version += 1;
  }

  const time = (ms) => {
    if (ms == null) return "—";
    const secs = Math.max(0, Math.ceil(ms / 1000));
    return `${Math.floor(secs / 60)}:${String(secs % 60).padStart(2, "0")}`;
  };

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    node.append(...children);
    return node;
  }

  function tapForm(action, side, cls, ...inner) {
    const form = el("form", { method: "post", action: `${base}/clock`, class: cls });
    form.append(el("input", { type: "hidden", name: "action", value: action }));
    if (side != null) form.append(el("input", { type: "hidden", name: "side", value: side }));
    form.append(...inner);
    return form;
  }

  function draw(model) {
    // The clock card as the server draws it (templates/clock/_clock.html), from the phone's state.
    const clock = document.getElementById("clock");
    if (!clock) return;
    charge(model, Date.now());
    Object.assign(clock.dataset, { status: model.status, running: model.running == null ? "" : model.running, version: model.version });
    const badge = clock.querySelector(".badge");
    if (badge) badge.textContent = `${say(root.dataset.turnOf, { turn: model.turn, turns: model.maxTurns })} · ${root.dataset.local}`;
    const box = el("div", { class: "clock-sides" });
    for (const side of model.order.length ? model.order : Object.keys(model.remaining).map(Number)) {
      const name = model.names[side] || String(side);
      const parts = [el("span", { class: "clock-name" }, name), el("span", { class: "clock-time", "data-remaining": model.remaining[side] ?? "" }, time(model.remaining[side]))];
      if (side === model.running && model.status === "running") {
        const button = el("button", { type: "submit", class: "clock-tap", "aria-label": say(clock.dataset.pass || "%(side)s", { side: name }) }, ...parts);
        box.append(tapForm("switch", null, "clock-side running", button));
        box.lastChild.dataset.side = side;
      } else {
        box.append(el("div", { class: `clock-side${side === model.running ? " running" : ""}`, "data-side": side }, ...parts));
      }
    }
    for (const old of clock.querySelectorAll(".clock-sides, .clock-controls, p:not(.small), details, form.row")) old.remove();
    clock.append(box);
    if (model.status === "running") {
      clock.append(el("div", { class: "actions clock-controls" }, tapForm("pause", null, "", el("button", { type: "submit", class: "secondary" }, clock.dataset.pauseLabel || ""))));
    } else if (model.status === "paused") {
      clock.append(el("div", { class: "actions clock-controls" }, tapForm("start", null, "", el("button", { type: "submit" }, clock.dataset.resumeLabel || ""))));
    }
    localStorage.setItem(MODEL, JSON.stringify(model));
    document.dispatchEvent(new Event("hideout:live-refreshed")); // clock.js counts the running side down
  }

  // --- taps kept instead of sent --------------------------------------------------------------

  function closeDialog() {
    const dialog = document.getElementById("confirm-dialog");
    if (!dialog) return;
    delete dialog.dataset.sending;
    for (const b of dialog.querySelectorAll("button")) b.disabled = false;
    if (dialog.open) dialog.close();
  }

  function kept(form) {
    const note = el("p", { class: "alert info", role: "status" }, root.dataset.kept);
    const card = form.closest("section.card") || form.parentElement;
    for (const other of card.querySelectorAll("form, details")) other.hidden = true;
    card.append(note);
  }

  async function clockTap(form, data) {
    const model = loadModel() || modelFromPage();
    if (!model) return;
    const tap = { action: data.get("action"), side: data.get("side") == null ? null : Number(data.get("side")) };
    // When it was made: the server counts the clock's time from then (the clock API's `at`).
    const body = { action: tap.action, version: model.version, at: Date.now() };
    if (tap.side != null) body.side = tap.side;
    apply(model, tap);
    draw(model);
    await keep("clock", `${base}/clock`, body);
  }

  async function otherTap(kind, form, data) {
    if (kind === "result") {
      const winners = data.get("draw") ? [] : data.getAll("winner").map(Number);
      await keep(kind, `${base}/result`, { winner_player_ids: winners });
    } else if (kind === "confirm") {
      await keep(kind, `${base}/confirm`, {});
    } else {
      await keep(kind, `${base}/dispute`, { reason: data.get("reason") || "" });
    }
    closeDialog();
    kept(form);
  }

  function tapped(e, phase) {
    if (!offline()) return;
    const form = e.target;
    const match = ROUTE.exec(form.getAttribute("action") || "");
    if (!match || (match[1] === "clock") !== (phase === "capture")) return;
    if (match[1] !== "clock" && e.defaultPrevented) return; // confirm.js asks first; its OK submits again
    e.preventDefault();
    e.stopImmediatePropagation();
    const data = new FormData(form);
    if (e.submitter && e.submitter.name) data.append(e.submitter.name, e.submitter.value);
    if (match[1] === "clock") clockTap(form, data);
    else otherTap(match[1], form, data);
  }

  // Clock taps before static/clock.js sends them (it would fail offline); the others after
  // static/confirm.js has asked.
  document.addEventListener("submit", (e) => tapped(e, "capture"), true);
  document.addEventListener("submit", (e) => tapped(e, "bubble"));

  // --- the confirm link's Share button (R12.2): the phone's share sheet, else a copy ------------

  document.addEventListener("click", async (e) => {
    const button = e.target.closest && e.target.closest("[data-share-url]");
    if (!button) return;
    const url = button.dataset.shareUrl;
    const said = document.querySelector("[data-share-said]");
    if (navigator.share) {
      try { await navigator.share({ title: button.dataset.shareTitle, url }); return; } catch (err) {
        if (err && err.name === "AbortError") return; // the person closed the share sheet
      }
    }
    try {
      await navigator.clipboard.writeText(url);
      if (said) said.textContent = button.dataset.copied;
    } catch (_e) {
      const field = document.getElementById("share-url");
      if (field) { field.focus(); field.select(); } // copy it by hand
    }
  });

  // --- back online ------------------------------------------------------------------------------

  let flushing = false;
  async function flush() {
    if (flushing || offline() || !(await waiting())) return;
    flushing = true;
    try {
      if (await replay()) {
        localStorage.removeItem(MODEL);
        location.reload(); // the server's page, with what it took and refused said on it
      }
    } finally {
      flushing = false;
    }
  }

  async function sentBefore() {
    const done = (await all(DONE)).filter((d) => d.battle === bid);
    if (!done.length) return;
    const took = done.filter((d) => d.took).length;
    const line = root.querySelector("[data-sent]");
    line.textContent = say(root.dataset.sentSummary, { took, refused: done.length - took });
    const list = root.querySelector("[data-refused]");
    for (const d of done.filter((x) => !x.took)) list.append(el("li", {}, `${root.dataset[`kind${d.kind[0].toUpperCase()}${d.kind.slice(1)}`]}: ${d.message}`));
    for (const d of done) await drop(DONE, d.seq);
  }

  window.addEventListener("online", flush);
  window.addEventListener("offline", show);
  if (navigator.serviceWorker) {
    navigator.serviceWorker.addEventListener("message", (e) => {
      if (e.data && e.data.type === "taps-sent" && e.data.sent && !flushing) location.reload();
    });
  }

  (async () => {
    await sentBefore();
    const model = loadModel();
    if (model && offline() && (await waiting())) draw(model);
    else if (!(await waiting())) localStorage.removeItem(MODEL);
    await show();
    await flush();
  })();
})();
