// Small progressive enhancements; every page works without this file.
document.addEventListener("DOMContentLoaded", () => {
  const current = document.querySelector(".tabs [aria-current='page']");
  if (current) current.scrollIntoView({ block: "nearest", inline: "center" });
});

// Issue 19: moments (a phase's deadline) are sent as <time datetime="…Z"> with the server's UTC
// words inside; here they are said in the reader's time zone (the account's, issue 34: <html
// data-time-zone>, else the browser's) and the page's language, with
// the time left ("in 3 hours") kept current. Forms marked data-utc-form send their
// datetime-local fields (the user's own time) as UTC in the hidden ends_at_utc field.
(() => {
  const lang = () => document.documentElement.lang || undefined;
  const zone = () => (document.documentElement.dataset.timeZone ? { timeZone: document.documentElement.dataset.timeZone } : {});

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
      let text = when.toLocaleString(lang(), { dateStyle: "medium", timeStyle: "short", ...zone() });
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

// R11.6 One tap acts once: a form's buttons wait while it is being sent, so a second tap does
// nothing (the server answers a repeated form with what the first one did, in any case). A
// plain post is marked once every other submit handler has had its say (the confirm dialog
// may have stopped it); an htmx form is released when its answer is in. A page brought back
// by Back gets its buttons again.
(() => {
  const buttons = (form) => form.querySelectorAll("button:not([type='button']), input[type='submit']");
  const hold = (form, on) => {
    for (const b of buttons(form)) {
      b.disabled = on;
      if (on) b.setAttribute("aria-busy", "true"); else b.removeAttribute("aria-busy");
    }
    if (on) form.dataset.sending = "1"; else delete form.dataset.sending;
  };
  document.addEventListener("submit", (event) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || (form.getAttribute("method") || "get").toLowerCase() !== "post") return;
    if (form.dataset.sending) { event.preventDefault(); return; }
    // After this tick: the submitter's own name and value have gone with the form by then.
    setTimeout(() => { if (!event.defaultPrevented) hold(form, true); }, 0);
  });
  // Only a form sent by htmx is held: a live check inside a form (the warband builder's) must
  // not stop its Save. The form is remembered with the request, because the answer may have
  // replaced the element that asked, and a held form would then refuse every later submit.
  const held = new WeakMap();
  document.addEventListener("htmx:beforeRequest", (event) => {
    const form = event.detail && event.detail.elt;
    if (!(form instanceof HTMLFormElement)) return;
    held.set(event.detail.xhr, form);
    hold(form, true);
  });
  document.addEventListener("htmx:afterRequest", (event) => {
    const form = event.detail && held.get(event.detail.xhr);
    if (form && form.isConnected) hold(form, false);
  });
  window.addEventListener("pageshow", () => {
    for (const form of document.querySelectorAll("form[data-sending]")) hold(form, false);
  });
})();

// R11.6 Back and submit acts once: pages are no-store, so Back draws the page again with the
// viewer's next one-time key, and a form sent from it would act again. The history entry keeps
// the key its page first had; a page reached by Back or Forward puts that key back in its forms,
// so the same form with the same fields is answered with what it did the first time. A new
// visit or a reload keeps the fresh key (a reload after an htmx act must not replay it).
(() => {
  const fields = () => document.querySelectorAll("form input[type='hidden'][name='once']");
  const navigation = performance.getEntriesByType("navigation")[0];
  const traversed = navigation && navigation.type === "back_forward";
  document.addEventListener("DOMContentLoaded", () => {
    const inputs = fields();
    if (!inputs.length) return;
    const state = history.state && typeof history.state === "object" ? history.state : {};
    if (traversed && state.hideoutOnce) {
      for (const input of inputs) input.value = state.hideoutOnce;
    } else {
      history.replaceState(Object.assign({}, state, { hideoutOnce: inputs[0].value }), "");
    }
  });
})();

// Issue 29: after Back the browser puts back what was ticked, typed and chosen, but a part the
// server drew from those fields (the warband builder's check panel) still shows them as the
// page was first sent. An element marked data-recheck asks the server again when it is shown
// with any of its fields no longer as the page sent it.
(() => {
  const moved = (el) => {
    if (el.type === "checkbox" || el.type === "radio") return el.checked !== el.defaultChecked;
    if (el.tagName === "SELECT") {
      const first = [...el.options].findIndex((o) => o.defaultSelected);
      return el.selectedIndex !== (first < 0 ? 0 : first);
    }
    if (el.type === "hidden" || el.type === "file") return false;
    return el.value !== el.defaultValue;
  };
  window.addEventListener("pageshow", () => {
    if (!window.htmx) return;
    for (const part of document.querySelectorAll("[data-recheck]")) {
      if ([...part.querySelectorAll("input, select, textarea")].some(moved)) window.htmx.trigger(part, "change");
    }
  });
})();

// Issue 29: the builder's "Every model that can fight" ticks the company's free models in one
// tap (never one that cannot fight, R4.7, nor one in another warband); unticked, it clears
// them. It listens while capturing, so the builder's live check (htmx, on the same change)
// already sees the ticks.
(() => {
  const fit = (all) => [...all.closest("fieldset").querySelectorAll("input[name=model_ids]")]
    .filter((box) => !box.disabled && !box.hasAttribute("data-unfit"));
  const sync = () => {
    for (const label of document.querySelectorAll("[data-pick-all]")) {
      const all = label.querySelector("input");
      const boxes = fit(all);
      if (!boxes.length) continue;
      label.hidden = false;
      all.checked = boxes.every((box) => box.checked);
    }
  };
  document.addEventListener("change", (event) => {
    const label = event.target.closest && event.target.closest("[data-pick-all]");
    if (label) {
      for (const box of fit(event.target)) box.checked = event.target.checked;
    } else if (event.target.name === "model_ids") sync();
  }, true);
  document.addEventListener("DOMContentLoaded", sync);
  window.addEventListener("pageshow", sync);
})();
