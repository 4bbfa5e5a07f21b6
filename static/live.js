// Live updates (SPEC R11.4). htmx's SSE extension holds the stream (templates/campaigns/_layout.html);
// on each event this refreshes the parts of the page marked data-live with that event's kind, from one
// fetch of the page, and shows the event's message in a toast. A part holding a half-filled form is
// left alone, so an update never throws away what someone is typing.
(() => {
  let pending = new Set();
  let timer = null;
  let lastSeen = "";

  function toast(text) {
    const box = document.getElementById("toasts");
    if (!box || !text) return;
    const p = document.createElement("p");
    p.className = "toast";
    p.textContent = text;
    box.appendChild(p);
    setTimeout(() => p.remove(), 7000);
  }

  function dirty(el) {
    if (el.contains(document.activeElement) && document.activeElement.matches("input, textarea, select")) return true;
    for (const f of el.querySelectorAll("input, textarea, select")) {
      if (f.type === "hidden") continue;
      if (f.tagName === "SELECT") {
        for (const o of f.options) if (o.selected !== o.defaultSelected) return true;
      } else if (f.type === "checkbox" || f.type === "radio") {
        if (f.checked !== f.defaultChecked) return true;
      } else if (f.value !== f.defaultValue) return true;
    }
    return false;
  }

  async function refresh() {
    const kinds = pending;
    pending = new Set();
    timer = null;
    const regions = [...document.querySelectorAll("[data-live]")].filter((el) =>
      kinds.has("reload") || el.dataset.live.split(" ").some((k) => kinds.has(k)));
    if (!regions.length) return;
    let html;
    try {
      const response = await fetch(location.href, { credentials: "same-origin", headers: { "X-Hideout-Live": "1" } });
      if (!response.ok) return;
      html = await response.text();
    } catch (e) {
      return;
    }
    const fresh = new DOMParser().parseFromString(html, "text/html");
    for (const el of regions) {
      const next = fresh.getElementById(el.id);
      if (!next || dirty(el)) continue;
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
    toast(data.message);
    if (message.type === "closed") return;
    pending.add(message.type);
    if (!timer) timer = setTimeout(refresh, 150);
  });
})();
