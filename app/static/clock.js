// The battle clock (issue 18). The server keeps each side's used time and when the running side's
// run began; this counts the running side down between taps, shows the out-of-time rule the moment
// its time is spent, and sends taps without reloading the page (a tap disables the clock until the
// server answers, so a double tap passes once). Other phones follow through the live stream
// (static/live.js refreshes #clock on a "clock" event), or a light poll when the stream is down.
(() => {
  let ticker = null;
  let live = false;
  let poller = null;

  const format = (ms) => {
    const secs = Math.max(0, Math.ceil(ms / 1000));
    return `${Math.floor(secs / 60)}:${String(secs % 60).padStart(2, "0")}`;
  };

  function start() {
    clearInterval(ticker);
    const clock = document.getElementById("clock");
    if (!clock || !clock.dataset.status) return;
    schedulePoll(clock);
    if (clock.dataset.status !== "running") return;
    const side = clock.querySelector(`.clock-side[data-side="${clock.dataset.running}"]`);
    const time = side && side.querySelector(".clock-time");
    if (!time || time.dataset.remaining === "") return;
    const left = Number(time.dataset.remaining);
    const began = performance.now();
    const tick = () => {
      const now = left - (performance.now() - began);
      time.textContent = format(now);
      if (now <= 0) {
        side.classList.add("out");
        const rule = clock.querySelector(".clock-out");
        if (rule) rule.hidden = false;
        clearInterval(ticker);
      }
    };
    tick();
    ticker = setInterval(tick, 250);
  }

  function swap(html) {
    const fresh = new DOMParser().parseFromString(html, "text/html");
    const next = fresh.getElementById("clock");
    const current = document.getElementById("clock");
    if (!next || !current) return null;
    const problem = fresh.querySelector(".alert.error[role=alert]");
    current.replaceWith(next);
    if (problem) {
      const note = document.createElement("p");
      note.className = "alert error";
      note.setAttribute("role", "alert");
      note.textContent = problem.textContent.trim();
      next.prepend(note);
    }
    start();
    return next;
  }

  document.addEventListener("submit", async (e) => {
    const form = e.target;
    const clock = document.getElementById("clock");
    if (e.defaultPrevented || !clock || !clock.contains(form) || !clock.dataset.status) return;
    e.preventDefault();
    const body = new FormData(form);
    if (e.submitter && e.submitter.name) body.append(e.submitter.name, e.submitter.value);
    clock.querySelectorAll("button").forEach((b) => { b.disabled = true; });
    // getAttribute: the form's <input name="action"> shadows its `action` property.
    const url = form.getAttribute("action") || location.href;
    try {
      const response = await fetch(url, { method: "POST", body, credentials: "same-origin" });
      if (swap(await response.text())) return;
    } catch (_err) { /* the network failed: the clock is as it was */ }
    clock.querySelectorAll("button").forEach((b) => { b.disabled = false; });
  });

  // Without the live stream, look again every few seconds while the game is on.
  function schedulePoll(clock) {
    clearTimeout(poller);
    if (live || !["running", "paused"].includes(clock.dataset.status)) return;
    poller = setTimeout(async () => {
      try {
        const response = await fetch(location.href, { credentials: "same-origin", headers: { "X-Hideout-Live": "1" } });
        const html = await response.text();
        const fresh = new DOMParser().parseFromString(html, "text/html").getElementById("clock");
        const current = document.getElementById("clock");
        if (fresh && current && fresh.dataset.version !== current.dataset.version) swap(html);
        else if (current) schedulePoll(current);
      } catch (_err) {
        schedulePoll(clock);
      }
    }, 3000);
  }

  document.addEventListener("htmx:sseOpen", () => { live = true; clearTimeout(poller); });
  document.addEventListener("htmx:sseError", () => {
    live = false;
    const clock = document.getElementById("clock");
    if (clock) schedulePoll(clock);
  });
  document.addEventListener("hideout:live-refreshed", start);
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
