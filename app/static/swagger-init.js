// /api/docs: Swagger UI on demand (issue 30). The page is a light reference drawn by the
// server; its 500 kB console is fetched only when asked for — the button, or a URL with
// ?try=1, #try or a Swagger deep link (#/<tag>/<operationId>) — and drawn in place. A file, not
// an inline script, so the page keeps the Content-Security-Policy (script-src 'self').
(function () {
  const form = document.getElementById("try-api");
  const holder = document.getElementById("swagger-ui");
  if (!form || !holder) return;
  const loading = document.getElementById("try-loading");
  const failed = document.getElementById("try-failed");
  const reference = document.getElementById("api-reference");
  let opened = null;

  function fetched(tag, attrs) {
    return new Promise(function (resolve, reject) {
      const el = document.createElement(tag);
      Object.assign(el, attrs);
      el.onload = resolve;
      el.onerror = function () {
        el.remove();
        reject(new Error(attrs.src || attrs.href));
      };
      document.head.appendChild(el);
    });
  }

  function open() {
    if (opened) return opened;
    form.querySelector("button").disabled = true;
    failed.hidden = true;
    loading.hidden = false;
    opened = Promise.all([
      fetched("link", { rel: "stylesheet", href: holder.dataset.css }),
      fetched("script", { src: holder.dataset.js }),
    ]).then(
      function () {
        loading.hidden = true;
        form.hidden = true;
        reference.hidden = true;
        document.getElementById("try-back").hidden = false;
        holder.hidden = false;
        document.body.classList.add("api-trying");
        window.ui = window.SwaggerUIBundle({
          url: holder.dataset.openapiUrl,
          dom_id: "#swagger-ui",
          layout: "BaseLayout",
          deepLinking: true,
          showExtensions: true,
          showCommonExtensions: true,
          validatorUrl: null,
          presets: [window.SwaggerUIBundle.presets.apis, window.SwaggerUIBundle.SwaggerUIStandalonePreset],
          onComplete: reachDeepLink,
        });
      },
      function () {
        loading.hidden = true;
        failed.hidden = false;
        form.querySelector("button").disabled = false;
        opened = null;
      }
    );
    return opened;
  }

  // Past 150 tags and operations Swagger UI draws only the ones near the screen, and its own
  // jump to a deep link aims by estimated heights, which a phone's two-line summaries exceed:
  // the operation could stay undrawn below. Ask again until it is drawn, then bring it up open.
  function reachDeepLink() {
    const link = location.hash.match(/^#\/([^/]+)\/([^/]+)$/);
    if (!link) return;
    const tag = decodeURIComponent(link[1]);
    const operation = decodeURIComponent(link[2]);
    const key = ["operations", tag, operation];
    let tries = 0;
    (function reach() {
      const drawn = document.getElementById("operations-" + tag.replace(/\s/g, "_") + "-" + operation);
      if (drawn) {
        drawn.scrollIntoView({ block: "start" });
        if (!drawn.classList.contains("is-open")) window.ui.layoutActions.show(key, true);
        return;
      }
      if (++tries > 50) return;
      window.ui.layoutActions.scrollToVirtualizedOperation(key);
      setTimeout(reach, 120);
    })();
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    // The address says the console is open, so a reload or a shared link opens it again.
    history.replaceState(null, "", "?try=1" + location.hash);
    open();
  });
  const asked = new URLSearchParams(location.search).has("try") || location.hash === "#try" || location.hash.startsWith("#/");
  if (asked) open();
})();
