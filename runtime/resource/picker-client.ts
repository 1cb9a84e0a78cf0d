/**
 * The reference picker's browser script, served at `/fw/picker.js` (picker-script.ts). Kept as
 * text in a module (not a file beside it) so a built or bundled app serves it with no copy step.
 *
 * A derived form's search input for a reference (`<input type="search" data-fw-pick=
 * "/fw/pick/posts">`) suggests rows as one types, from the pick endpoint (JSON `[{ "key": 7,
 * "label": "…" }]`, the rows the viewer may read), in a `<datalist>`. A suggestion taken (the
 * text is its label) is sent as its key; any other text is sent as typed, and the server
 * resolves it as without the script. No inline script or handler: it runs under
 * `script-src 'self'`. spec/resource/picker-client.test.ts type-checks it against the DOM.
 */
export const PICKER_SCRIPT = `// @ts-check
(() => {
  "use strict";
  let serial = 0;

  /** @param {HTMLInputElement} input */
  function enhance(input) {
    const pick = input.getAttribute("data-fw-pick");
    if (!pick || input.dataset["fwPicker"] === "on") return;
    input.dataset["fwPicker"] = "on";
    const list = document.createElement("datalist");
    list.id = "fw-pick-" + ++serial;
    input.after(list);
    input.setAttribute("list", list.id);
    /** @type {{ key: string, label: string } | null} the row chosen: its key is sent while the text is its label */
    let chosen = null;
    const label = input.getAttribute("data-fw-label");
    if (label && /^[1-9][0-9]*$/.test(input.value.trim())) {
      chosen = { key: input.value.trim(), label: label };
      input.value = label;
    }
    let latest = 0;
    /** @type {{ key: number, label: string }[]} */
    let options = [];
    const choose = () => {
      const same = options.filter((o) => o.label === input.value);
      const one = same.length === 1 ? same[0] : undefined;
      if (one) chosen = { key: String(one.key), label: one.label };
      else if (chosen && chosen.label !== input.value) chosen = null;
    };
    input.addEventListener("input", async () => {
      choose();
      const asked = ++latest;
      /** @type {unknown} */
      let found;
      try {
        const response = await fetch(pick + "?q=" + encodeURIComponent(input.value), { headers: { accept: "application/json" }, credentials: "same-origin" });
        if (!response.ok) return;
        found = await response.json();
      } catch {
        return;
      }
      // An older answer arriving after a newer one is dropped.
      if (asked !== latest || !Array.isArray(found)) return;
      options = found;
      list.replaceChildren(
        ...options.map((o) => {
          const option = document.createElement("option");
          option.value = o.label;
          option.textContent = o.label + " (" + o.key + ")";
          return option;
        }),
      );
      choose();
    });
    input.form?.addEventListener("submit", () => {
      if (chosen && input.value === chosen.label) input.value = chosen.key;
    });
  }

  function start() {
    for (const input of document.querySelectorAll("input[data-fw-pick]")) if (input instanceof HTMLInputElement) enhance(input);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
`;
