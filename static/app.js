// Small progressive enhancements; every page works without this file.
document.addEventListener("DOMContentLoaded", () => {
  const current = document.querySelector(".tabs [aria-current='page']");
  if (current) current.scrollIntoView({ block: "nearest", inline: "center" });
});

// Issue 19: moments (a phase's deadline) are sent as <time datetime="…Z"> with the server's UTC
// words inside; here they are said in the browser's time zone and the page's language, with
// the time left ("in 3 hours") kept current. Forms marked data-utc-form send their
// datetime-local fields (the user's own time) as UTC in the hidden ends_at_utc field.
(() => {
  const lang = () => document.documentElement.lang || undefined;

  function relative(ms) {
    if (!window.Intl || !Intl.RelativeTimeFormat) return "";
    const rtf = new Intl.RelativeTimeFormat(lang(), { numeric: "auto" });
    const minutes = Math.round(ms / 60000);
    const abs = Math.abs(minutes);
    if (abs < 60) return rtf.format(minutes, "minute");
    if (abs < 48 * 60) return rtf.format(Math.round(minutes / 60), "hour");
    return rtf.format(Math.round(minutes / 1440), "day");
  }

  function localize(root) {
    for (const el of (root || document).querySelectorAll("time[data-local]")) {
      const when = new Date(el.getAttribute("datetime"));
      if (isNaN(when)) continue;
      let text = when.toLocaleString(lang(), { dateStyle: "medium", timeStyle: "short" });
      if (el.hasAttribute("data-relative")) {
        const left = relative(when - Date.now());
        if (left) text += ` (${left})`;
      }
      el.textContent = text;
      el.title = when.toISOString();
    }
  }

  function pad(n) { return String(n).padStart(2, "0"); }

  function toLocalInput(iso) {
    const d = new Date(iso.endsWith("Z") ? iso : iso + "Z");
    if (isNaN(d)) return "";
    return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
  }

  function prepareForms(root) {
    for (const form of (root || document).querySelectorAll("form[data-utc-form]")) {
      const input = form.querySelector("input[type='datetime-local']");
      const hidden = form.querySelector("input[name='ends_at_utc']");
      if (!input || !hidden || form.dataset.utcReady) continue;
      form.dataset.utcReady = "1";
      const utc = input.dataset.utc;
      if (utc) { input.value = toLocalInput(utc); input.defaultValue = input.value; }
      form.addEventListener("submit", () => {
        const local = new Date(input.value);  // a datetime-local value is read as the browser's time
        hidden.value = isNaN(local) ? "" : local.toISOString();
      });
    }
  }

  function run() { localize(); prepareForms(); }
  document.addEventListener("DOMContentLoaded", run);
  document.addEventListener("hideout:live-refreshed", run);
  setInterval(() => localize(), 60000);
})();
