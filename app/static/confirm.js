// Confirm before one-way steps, keep the scroll position across a form post, and let
// the flash message be closed. Every page works without this file: the server then asks
// on a confirm page of its own, and the flash's ✕ is a plain link to the same page.
(() => {
  const SCROLL_KEY = "hideout-scroll";
  const dialog = document.getElementById("confirm-dialog");
  let pending = null; // the form (and the button that submitted it) waiting for an answer

  const rememberScroll = (form) => {
    if ((form.getAttribute("method") || "get").toLowerCase() !== "post") return;
    try {
      sessionStorage.setItem(SCROLL_KEY, JSON.stringify({ path: location.pathname, y: window.scrollY, at: Date.now() }));
    } catch (_e) { /* private mode: no scroll memory */ }
  };

  const restoreScroll = () => {
    let saved = null;
    try {
      saved = JSON.parse(sessionStorage.getItem(SCROLL_KEY) || "null");
      sessionStorage.removeItem(SCROLL_KEY);
    } catch (_e) { return; }
    // Only when the post came back to the page it was sent from (post/redirect/get).
    if (!saved || saved.path !== location.pathname || Date.now() - saved.at > 60000) return;
    const place = () => {
      window.scrollTo(0, saved.y);
      // The redirect may name what changed (#p-… in the shop, #event-…): keep it on screen.
      const id = location.hash ? decodeURIComponent(location.hash.slice(1)) : "";
      const target = id ? document.getElementById(id) : null;
      if (target) {
        // The message says what happened to this card: off screen at the page's top, it is
        // shown with the card instead (in the flow, so it covers no field).
        const flash = document.getElementById("flash");
        if (flash && !target.contains(flash)) {
          const shown = flash.getBoundingClientRect();
          if (shown.bottom < 0 || shown.top > window.innerHeight) target.prepend(flash);
        }
        const box = target.getBoundingClientRect();
        if (box.bottom < 0 || box.top > window.innerHeight) target.scrollIntoView({ block: "start" });
      }
    };
    place();
    requestAnimationFrame(place);
  };

  document.addEventListener("submit", (e) => {
    const form = e.target;
    if (!(form instanceof HTMLFormElement) || form.method === "dialog") return;
    const submitter = e.submitter || null;
    const source = submitter && submitter.dataset.confirm ? submitter : form.dataset.confirm ? form : null;
    const already = form.querySelector("input[name=confirm][value='1']");
    if (source && !already && dialog && typeof dialog.showModal === "function") {
      e.preventDefault();
      pending = { form, submitter };
      dialog.querySelector(".confirm-q").textContent = source.dataset.confirm;
      dialog.querySelector(".confirm-detail").textContent = source.dataset.confirmDetail || "";
      dialog.querySelector(".confirm-ok").textContent =
        source.dataset.confirmOk || (submitter ? submitter.textContent.trim() : "OK");
      dialog.returnValue = "";
      dialog.showModal();
      return;
    }
    rememberScroll(form);
  });

  if (dialog) {
    const ok = dialog.querySelector(".confirm-ok");
    // The answer is sent from the OK button's own click, and the dialog stays open (modal: the
    // page under it is inert) with its buttons held until the next page comes. Sending it from
    // the dialog's close event instead let a quick second tap reach the page under the closing
    // dialog first (issue 29: another destination chosen, another button hit).
    ok.addEventListener("click", (e) => {
      e.preventDefault();
      const answer = pending;
      if (!answer || dialog.dataset.sending) return;
      dialog.dataset.sending = "1";
      for (const b of dialog.querySelectorAll("button")) b.disabled = true;
      ok.setAttribute("aria-busy", "true");
      const input = document.createElement("input");
      input.type = "hidden";
      input.name = "confirm";
      input.value = "1";
      answer.form.appendChild(input);
      if (answer.submitter) answer.form.requestSubmit(answer.submitter);
      else answer.form.requestSubmit();
    });
    // Escape does not close a dialog whose answer is on its way.
    dialog.addEventListener("cancel", (e) => { if (dialog.dataset.sending) e.preventDefault(); });
    dialog.addEventListener("close", () => { if (!dialog.dataset.sending) pending = null; });
    // Back brings the page again from the browser's cache: the dialog is closed and free.
    window.addEventListener("pageshow", () => {
      if (!dialog.dataset.sending) return;
      delete dialog.dataset.sending;
      for (const b of dialog.querySelectorAll("button")) b.disabled = false;
      ok.removeAttribute("aria-busy");
      pending = null;
      if (dialog.open) dialog.close();
    });
  }

  document.addEventListener("click", (e) => {
    const close = e.target.closest && e.target.closest("[data-dismiss-flash]");
    if (!close) return;
    e.preventDefault();
    const flash = close.closest(".flash");
    if (flash) flash.remove();
  });

  // Deferred scripts run before DOMContentLoaded: wait for it, after app.js's own
  // handler has scrolled the tabs.
  if (document.readyState === "complete") restoreScroll();
  else document.addEventListener("DOMContentLoaded", restoreScroll);
})();
