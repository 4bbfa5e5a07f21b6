// The settlement page without round trips: steppers, "taken out" showing the model's injury,
// the experience the campaign's rules give recomputed as the course changes (what a model is
// given beyond it is kept), rank-ups shown when reached, and the shortcuts. Without this file the page still works: every button
// posts the form and the server does the same.
(() => {
  const form = document.getElementById("settle");
  if (!form || form.querySelector("fieldset[disabled]")) return;
  const num = (el, fallback = 0) => { const n = parseInt(el && el.value, 10); return Number.isNaN(n) ? fallback : n; };
  const rules = {
    part: parseInt(form.dataset.takingPart, 10) || 0,
    enemy: parseInt(form.dataset.perEnemy, 10) || 0,
    obj: parseInt(form.dataset.objective, 10) || 0,
    win: parseInt(form.dataset.win, 10) || 0,
  };
  const models = [...form.querySelectorAll(".settle-model")].map((li) => li.dataset.model);
  const q = (sel) => form.querySelector(sel);

  const partInput = q("input[name=part_award]");
  const partOn = () => !partInput || partInput.value === "1";
  // The campaign's award for one model; `full` counts taking part even when the shortcut is off.
  const proposal = (id, full = false) => {
    const took = num(q(`#took_${id}`));
    const obj = q(`input[data-obj][value="${id}"]`);
    return (full || partOn() ? rules.part : 0) + rules.enemy * took + (obj && obj.checked ? rules.obj : 0) + rules.win;
  };

  const refreshXp = () => {
    let given = 0;
    for (const id of models) {
      const input = q(`#xp_${id}`);
      if (!input) continue;
      const base = proposal(id);
      const extra = parseInt(input.dataset.extra, 10) || 0;
      input.value = Math.max(0, base + extra);
      given += Math.max(0, base + extra - proposal(id, true));
      const shown = q(`[data-proposal-for="${id}"]`);
      if (shown) shown.textContent = base;
    }
    const out = document.getElementById("leader-points");
    if (out) out.textContent = given;
    refreshPromotions();
  };

  const refreshPromotions = () => {
    let any = false;
    for (const row of form.querySelectorAll(".promo")) {
      const input = q(`#xp_${row.dataset.model}`);
      const before = parseInt(input && input.dataset.before, 10) || 0;
      const due = before + num(input) >= parseInt(row.dataset.threshold, 10);
      row.hidden = !due;
      row.querySelector("input").disabled = !due;
      any = any || due;
    }
    const none = q(".none-due");
    if (none) none.hidden = any;
  };

  const refreshInjuries = () => {
    let any = false;
    for (const box of form.querySelectorAll(".injury")) {
      const out = q(`input[data-out][value="${box.dataset.model}"]`);
      const shown = !!out && out.checked;
      box.hidden = !shown;
      for (const el of box.querySelectorAll("select, input")) el.disabled = !shown;
      any = any || shown;
    }
    const none = q(".none-out");
    if (none) none.hidden = any;
  };

  form.addEventListener("click", (e) => {
    const step = e.target.closest("[data-step]");
    if (step) {
      const input = document.getElementById(step.dataset.for);
      const delta = parseInt(step.dataset.step, 10);
      if (input.dataset.xp) {
        const base = proposal(input.dataset.xp);
        const extra = Math.max(-base, (parseInt(input.dataset.extra, 10) || 0) + delta);
        input.dataset.extra = extra;
      } else {
        input.value = Math.max(0, num(input) + delta);
      }
      refreshXp();
      return;
    }
    const shortcut = e.target.closest("[data-settle]");
    if (!shortcut) return;
    e.preventDefault();
    if (shortcut.dataset.settle === "survived") {
      for (const box of form.querySelectorAll("input[data-out]")) if (!box.disabled) box.checked = false;
      refreshInjuries();
    } else if (shortcut.dataset.settle === "part") {
      const on = !partOn();
      partInput.value = on ? "1" : "0";
      shortcut.setAttribute("aria-pressed", on ? "true" : "false");
      refreshXp();
    }
  });

  form.addEventListener("input", (e) => {
    const el = e.target;
    if (el.dataset.xp !== undefined && el.matches("input[data-xp]")) {
      el.dataset.extra = num(el) - proposal(el.dataset.xp);
      refreshXp();
    } else if (el.matches("[data-took]")) {
      refreshXp();
    }
  });

  form.addEventListener("change", (e) => {
    const el = e.target;
    if (el.matches("[data-out]")) refreshInjuries();
    if (el.matches("[data-obj]")) refreshXp();
    if (el.matches("[data-injury]")) el.closest(".injury").dataset.result = el.value;
  });

  refreshInjuries();
  refreshXp();
})();
