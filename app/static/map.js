// The campaign map: pinch-zoom and pan, a details sheet, and the GM's editor (add, move,
// draw paths). Without this file the map's links and the list below it still work.
(() => {
  const svg = document.getElementById("map");
  if (!svg) return;
  const cid = svg.dataset.campaign;
  const of = svg.dataset.of || "";
  const H = Number(svg.dataset.height);
  const csrf = JSON.parse(document.body.getAttribute("data-hx-headers") || "{}")["X-CSRF-Token"];
  const sheet = document.getElementById("sheet");
  const hint = document.getElementById("map-hint");
  const full = [0, 0, 1000, H];
  let vb = full.slice();
  let mode = "view";
  let pathStart = null;

  const say = (text) => { if (hint) hint.textContent = text || ""; };
  const setViewBox = () => {
    svg.setAttribute("viewBox", vb.map((n) => n.toFixed(1)).join(" "));
    // Map units per screen pixel, so markers keep their size on screen (see style.css).
    svg.style.setProperty("--s", (vb[2] / (svg.clientWidth || 1000)).toFixed(3));
  };
  const clampPan = () => {
    vb[0] = Math.min(Math.max(vb[0], -vb[2] * 0.25), 1000 - vb[2] * 0.75);
    vb[1] = Math.min(Math.max(vb[1], -vb[3] * 0.25), H - vb[3] * 0.75);
  };
  const toMap = (clientX, clientY) => {
    const pt = svg.createSVGPoint();
    pt.x = clientX; pt.y = clientY;
    return pt.matrixTransform(svg.getScreenCTM().inverse());
  };
  const zoom = (factor, cx, cy) => {
    const w = Math.min(1000, Math.max(80, vb[2] * factor));
    const h = (w * H) / 1000;
    vb = [cx - ((cx - vb[0]) * w) / vb[2], cy - ((cy - vb[1]) * h) / vb[3], w, h];
    if (w >= 1000) vb = full.slice();
    clampPan();
    setViewBox();
  };
  const centre = () => [vb[0] + vb[2] / 2, vb[1] + vb[3] / 2];

  document.querySelectorAll("[data-zoom]").forEach((button) =>
    button.addEventListener("click", () => {
      const kind = button.dataset.zoom;
      if (kind === "reset") { vb = full.slice(); setViewBox(); return; }
      zoom(kind === "in" ? 1 / 1.5 : 1.5, ...centre());
    }));
  svg.addEventListener("wheel", (e) => {
    e.preventDefault();
    const p = toMap(e.clientX, e.clientY);
    zoom(e.deltaY > 0 ? 1.2 : 1 / 1.2, p.x, p.y);
  }, { passive: false });
  svg.addEventListener("keydown", (e) => {
    const step = vb[2] / 8;
    const moves = { ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, -step], ArrowDown: [0, step] };
    if (e.key === "+" || e.key === "=") zoom(1 / 1.5, ...centre());
    else if (e.key === "-") zoom(1.5, ...centre());
    else if (moves[e.key] && e.target === svg) { vb[0] += moves[e.key][0]; vb[1] += moves[e.key][1]; clampPan(); setViewBox(); }
    else return;
    e.preventDefault();
  });
  svg.setAttribute("tabindex", "0");
  setViewBox();
  window.addEventListener("resize", setViewBox);

  // Pointers: one finger pans (or drags a place in Move mode), two fingers pinch.
  const pointers = new Map();
  let moved = 0;
  let dragging = null;
  svg.addEventListener("pointerdown", (e) => {
    pointers.set(e.pointerId, { x: e.clientX, y: e.clientY });
    moved = 0;
    const place = e.target.closest("a.pl");
    if (mode === "move" && place && pointers.size === 1) {
      dragging = { el: place, id: place.id.slice(1) };
      e.preventDefault();
    }
  });
  svg.addEventListener("pointermove", (e) => {
    const last = pointers.get(e.pointerId);
    if (!last) return;
    const dx = e.clientX - last.x, dy = e.clientY - last.y;
    moved += Math.abs(dx) + Math.abs(dy);
    // Capture only once the gesture really moves: a plain click keeps the marker as its target.
    if (moved > 8 && !svg.hasPointerCapture(e.pointerId)) svg.setPointerCapture(e.pointerId);
    if (pointers.size === 2) {
      const [a, b] = [...pointers.values()];
      const other = a === last ? b : a;
      const before = Math.hypot(last.x - other.x, last.y - other.y);
      const after = Math.hypot(e.clientX - other.x, e.clientY - other.y);
      if (before > 0 && after > 0) {
        const mid = toMap((e.clientX + other.x) / 2, (e.clientY + other.y) / 2);
        zoom(before / after, mid.x, mid.y);
      }
    } else if (dragging) {
      const p = toMap(e.clientX, e.clientY);
      dragging.x = Math.min(1000, Math.max(0, p.x));
      dragging.y = Math.min(H, Math.max(0, p.y));
      dragging.el.setAttribute("transform", `translate(${dragging.x.toFixed(1)} ${dragging.y.toFixed(1)})`);
    } else {
      const scale = vb[2] / svg.clientWidth;
      vb[0] -= dx * scale; vb[1] -= dy * scale;
      clampPan();
      setViewBox();
    }
    pointers.set(e.pointerId, { x: e.clientX, y: e.clientY });
  });
  const release = (e) => {
    pointers.delete(e.pointerId);
    if (dragging && dragging.x !== undefined) {
      const { id, x, y } = dragging;
      post(`/campaigns/${cid}/places/${id}/move`, { x: ((x / 1000) * 100).toFixed(1), y: ((y / H) * 100).toFixed(1) })
        .then(() => say(svg.dataset.msgSaved));
    }
    dragging = null;
  };
  svg.addEventListener("pointerup", release);
  svg.addEventListener("pointercancel", release);

  const post = (url, fields) =>
    fetch(url, {
      method: "POST",
      headers: { "X-CSRF-Token": csrf, "HX-Request": "true", "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ ...fields, ...(of ? { of } : {}) }),
    }).then(async (response) => {
      if (!response.ok) { say(await response.text()); throw new Error(String(response.status)); }
      return response;
    });

  const markSelected = (place) => {
    svg.querySelectorAll("a.pl.sel").forEach((el) => el.classList.remove("sel"));
    if (place) place.classList.add("sel");
  };
  // The sheet is an htmx partial swapped into #sheet.
  const openSheet = (url, place = null) =>
    window.htmx.ajax("GET", url, { target: "#sheet", swap: "innerHTML" }).then(() => {
      markSelected(place);
      // The new sheet may have focused its own field (autofocus): typing there goes on.
      if (!sheet.contains(document.activeElement)) sheet.focus({ preventScroll: true });
      sheet.scrollIntoView({ block: "nearest", behavior: "smooth" });
    });

  svg.addEventListener("click", (e) => {
    if (moved > 8) { e.preventDefault(); return; }
    const place = e.target.closest("a.pl");
    if (mode === "add" && !place) {
      const p = toMap(e.clientX, e.clientY);
      const x = ((p.x / 1000) * 100).toFixed(1), y = ((p.y / H) * 100).toFixed(1);
      openSheet(`/campaigns/${cid}/map/new-place?${of ? `of=${of}&` : ""}x=${x}&y=${y}&mode=add`);
      return;
    }
    if (!place) return;
    e.preventDefault();
    if (mode === "path") {
      if (!pathStart) { pathStart = place; place.classList.add("sel"); say(svg.dataset.msgPathSecond); return; }
      const from = pathStart.id.slice(1), to = place.id.slice(1);
      pathStart.classList.remove("sel");
      pathStart = null;
      if (from === to) { say(svg.dataset.msgPathFirst); return; }
      post(`/campaigns/${cid}/paths`, { from_id: from, to_id: to }).then(() => window.location.reload()).catch(() => {});
      return;
    }
    if (mode === "move") return;
    openSheet(place.getAttribute("href"), place);
  });

  sheet.addEventListener("click", (e) => {
    // The New place sheet's income buttons: one tap sets the field (issue 32).
    const income = e.target.closest("[data-income]");
    if (income) {
      const field = document.getElementById(income.getAttribute("aria-controls"));
      if (field) field.value = income.dataset.income;
      income.parentElement.querySelectorAll("[data-income]").forEach((b) => b.setAttribute("aria-pressed", String(b === income)));
      return;
    }
    if (e.target.closest("[data-close-sheet]")) { e.preventDefault(); sheet.innerHTML = ""; markSelected(null); svg.focus(); }
  });

  // The editor's mode; the page may start in one (?mode=add after adding a place, so the
  // next tap adds another), and the address follows the mode so a reload keeps it.
  const setMode = (value) => {
    mode = value;
    svg.dataset.mode = mode;
    if (pathStart) { pathStart.classList.remove("sel"); pathStart = null; }
    say({ add: svg.dataset.msgAdd, move: svg.dataset.msgMove, path: svg.dataset.msgPathFirst }[mode] || "");
  };
  document.querySelectorAll("input[name=mode]").forEach((radio) =>
    radio.addEventListener("change", () => {
      setMode(radio.value);
      const url = new URL(window.location.href);
      if (mode === "view") url.searchParams.delete("mode"); else url.searchParams.set("mode", mode);
      url.searchParams.delete("place");
      window.history.replaceState(null, "", url.pathname + url.search);
    }));
  const checked = document.querySelector("input[name=mode]:checked");
  if (checked && checked.value !== "view") setMode(checked.value);
})();
