// Live updates (SPEC R11.4). htmx's SSE extension holds the stream (templates/campaigns/_layout.html);
// on each event this refreshes the parts of the page marked data-live with that event's kind, from one
// fetch of the page, and shows the event's message in a toast. A part holding a half-filled form is
// left alone, so an update never throws away what someone is typing; while the confirm dialog is
// open nothing is replaced (the dialog submits the form it was opened for).
(() => {
  const MAX_TOASTS = 2;
  let pending = new Set();
  let timer = null;
  let lastSeen = "";

  // The page's CSRF token (the body's htmx headers) for a form built here.
  function csrfToken() {
    const raw = document.body.getAttribute("hx-headers") || document.body.getAttribute("data-hx-headers") || "{}";
    try { return JSON.parse(raw)["X-CSRF-Token"] || ""; } catch (e) { return ""; }
  }

  // A one-time key (R11.6) for a form built here: the page's own, from any of its forms (the
  // key is bound to the form's address and fields, so sharing it with another form is safe).
  function onceKey() {
    const input = document.querySelector("form input[name=once]");
    return input ? input.value : "";
  }

  function hidden(form, name, value) {
    const input = document.createElement("input");
    input.type = "hidden";
    input.name = name;
    input.value = value;
    form.appendChild(input);
  }

  // What the message asks (issue 29: a result waiting for this reader's confirmation): a form
  // that does it in one tap, and a link to the page where it can be looked at first.
  function asking(ask) {
    const row = document.createElement("span");
    row.className = "toast-actions";
    if (ask.post) {
      const form = document.createElement("form");
      form.method = "post";
      form.action = ask.post;
      hidden(form, "csrf_token", csrfToken());
      const once = onceKey();
      if (once) hidden(form, "once", once);
      const button = document.createElement("button");
      button.type = "submit";
      button.textContent = ask.post_label;
      form.appendChild(button);
      row.appendChild(form);
    }
    if (ask.open) {
      const link = document.createElement("a");
      link.href = ask.open;
      link.textContent = ask.open_label;
      row.appendChild(link);
    }
    return row;
  }

  function toast(text, ask) {
    const box = document.getElementById("toasts");
    if (!box || !text) return;
    const p = document.createElement("p");
    p.className = "toast";
    const words = document.createElement("span");
    words.textContent = text;
    p.appendChild(words);
    if (ask) p.appendChild(asking(ask));
    // A tap dismisses it, but not a tap on what it offers (that would take its form away).
    p.addEventListener("click", (e) => { if (!e.target.closest("form, a")) p.remove(); });
    box.appendChild(p);
    while (box.children.length > MAX_TOASTS) box.firstElementChild.remove();
    // One that asks something stays longer: it is read, then answered.
    setTimeout(() => { if (!p.querySelector("form[data-sending]")) p.remove(); }, ask ? 30000 : 6000);
  }

  function selectChanged(select) {
    if (select.multiple) return [...select.options].some((o) => o.selected !== o.defaultSelected);
    // Without an option marked selected, the browser shows the first enabled one.
    const options = [...select.options];
    let initial = -1;
    options.forEach((o, i) => { if (o.defaultSelected) initial = i; });
    if (initial < 0) initial = options.findIndex((o) => !o.disabled);
    return select.selectedIndex !== initial;
  }

  function dirty(el) {
    if (el.contains(document.activeElement) && document.activeElement.matches("input, textarea, select")) return true;
    for (const f of el.querySelectorAll("input, textarea, select")) {
      if (f.type === "hidden") continue;
      if (f.tagName === "SELECT") {
        if (selectChanged(f)) return true;
      } else if (f.type === "checkbox" || f.type === "radio") {
        if (f.checked !== f.defaultChecked) return true;
      } else if (f.value !== f.defaultValue) return true;
    }
    return false;
  }

  function schedule() {
    if (!timer) timer = setTimeout(refresh, 150);
  }

  async function refresh() {
    timer = null;
    const dialog = document.getElementById("confirm-dialog");
    if (dialog && dialog.open) {
      dialog.addEventListener("close", schedule, { once: true });
      return;
    }
    const kinds = pending;
    pending = new Set();
    // A part with no kinds (a page whose script holds state, like the map) is never replaced.
    const regions = [...document.querySelectorAll("[data-live]")].filter((el) => el.dataset.live.trim() &&
      (kinds.has("reload") || el.dataset.live.split(" ").some((k) => kinds.has(k))));
    if (!regions.length) return;
    let html;
    try {
      const response = await fetch(location.href, { credentials: "same-origin", headers: { "X-Hideout-Live": "1" } });
      if (!response.ok) return;
      html = await response.text();
    } catch (e) {
      return;
    }
    if (dialog && dialog.open) {  // opened while the page was fetched: try again once it closes
      kinds.forEach((k) => pending.add(k));
      dialog.addEventListener("close", schedule, { once: true });
      return;
    }
    const fresh = new DOMParser().parseFromString(html, "text/html");
    for (const el of regions) {
      const next = fresh.getElementById(el.id);
      if (!next || dirty(el)) continue;
      // A part that says its version and already shows the fresh one stays as it is, with what it
      // says besides: a late refresh after a refused clock tap kept only the clock, and the
      // message that the clock had changed meanwhile vanished.
      if (el.dataset.version && next.dataset.version === el.dataset.version) continue;
      el.replaceWith(next);
      if (window.htmx) htmx.process(next);
    }
    document.dispatchEvent(new CustomEvent("hideout:live-refreshed", { detail: { kinds: [...kinds] } }));
  }

  document.addEventListener("htmx:sseMessage", (e) => {
    const message = e.detail;
    if (!message || typeof message.data !== "string") return;
    if (message.lastEventId && message.lastEventId === lastSeen) return;
    lastSeen = message.lastEventId || lastSeen;
    let data = {};
    try { data = JSON.parse(message.data); } catch (err) { return; }
    toast(data.message, data.ask && typeof data.ask === "object" ? data.ask : null);
    if (message.type === "closed") return;
    pending.add(message.type);
    schedule();
  });
})();
