/* Installable on a phone (issue 19): registers the service worker (static/sw.js) and shows the
   offline banner of templates/base.html — on a saved copy the worker served (it marks the
   banner data-state="copy"), or on a live page while the connection is gone. The banner's
   words are in the page, in the page's language; only the saved time is formatted here. */
(function () {
  "use strict";

  const lang = document.documentElement.lang || "en";
  // The page's language with the phone's region where they agree (en-GB writes 1 Dec 2026).
  const region = (navigator.languages || []).find(function (tag) { return tag.split("-")[0] === lang; }) || lang;

  function banner() {
    return document.getElementById("offline-banner");
  }

  function when(iso) {
    const date = new Date(iso);
    if (isNaN(date)) return "";
    return new Intl.DateTimeFormat(region, { dateStyle: "medium", timeStyle: "short" }).format(date);
  }

  function showCopy(el) {
    el.hidden = false;
    const saved = el.querySelector(".offline-saved");
    // A <span> until there is a time to show: an empty <time> is invalid HTML (issue 30).
    const time = el.querySelector(".offline-saved .offline-when");
    const text = el.dataset.saved ? when(el.dataset.saved) : "";
    if (saved && time && text) {
      time.textContent = text;
      saved.hidden = false;
    }
  }

  function away() {
    const el = banner();
    if (!el || el.dataset.state === "copy") return;
    el.dataset.state = "away";
    el.hidden = false;
  }

  function back() {
    const el = banner();
    // A saved copy stays marked as one until it is loaded again.
    if (el && el.dataset.state === "away" && !document.body.classList.contains("pwa-offline-page")) el.hidden = true;
  }

  function listSaved(worker) {
    const section = document.getElementById("offline-saved");
    const list = document.getElementById("offline-saved-list");
    if (!section || !list || !worker) return;
    const channel = new MessageChannel();
    channel.port1.onmessage = function (event) {
      const pages = Array.isArray(event.data) ? event.data : [];
      for (const saved of pages) {
        const item = document.createElement("li");
        const link = document.createElement("a");
        link.href = saved.url;
        // The title comes escaped from the saved HTML; parsed inertly, only its text is used.
        const title = new DOMParser().parseFromString(saved.title, "text/html").documentElement.textContent;
        link.textContent = title.replace(/ · Hideout$/, "");
        item.appendChild(link);
        // Which page it is, in the words the offline page carries in its language.
        const about = [list.dataset[saved.kind], saved.saved && when(saved.saved)].filter(Boolean);
        if (about.length) {
          const small = document.createElement("span");
          small.className = "small muted";
          small.textContent = " · " + about.join(" · ");
          item.appendChild(small);
        }
        list.appendChild(item);
      }
      section.hidden = pages.length === 0;
    };
    worker.postMessage({ type: "saved-pages" }, [channel.port2]);
  }

  function start() {
    const el = banner();
    if (el && el.dataset.state === "copy") showCopy(el);
    else if (!navigator.onLine) away();
    window.addEventListener("offline", away);
    window.addEventListener("online", back);
    if (!("serviceWorker" in navigator)) return;
    // After the page has loaded (issue 30): starting the worker is the longest task a page
    // runs, and it need not hold up the first taps.
    if (document.readyState === "complete") registerWorker();
    else window.addEventListener("load", function () { setTimeout(registerWorker, 0); }, { once: true });
  }

  function registerWorker() {
    navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(function () {
      // No worker (a private window, an old browser): the site works as before, online only.
    });
    navigator.serviceWorker.ready.then(function (registration) {
      const worker = registration.active;
      if (!worker) return;
      if (document.body.classList.contains("pwa-offline-page")) listSaved(worker);
      // The offline page is kept in the language of the pages being read.
      else if (navigator.onLine) worker.postMessage({ type: "lang", lang: lang });
      // Saved pages go once the session has ended elsewhere (sw.js asks the server).
      const ask = function () {
        if (navigator.onLine && document.visibilityState !== "hidden") worker.postMessage({ type: "session" });
      };
      ask();
      window.addEventListener("online", ask);
      document.addEventListener("visibilitychange", ask);
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
