/**
 * The upload progress script, served at `/fw/upload.js` (upload-script.ts): kept as text in a
 * module so a built or bundled app serves it with no copy step.
 *
 * A form with a file field (`<form data-fw-upload enctype="multipart/form-data">`) is sent as
 * the browser would send it, through XMLHttpRequest so a `<progress>` beside its button shows
 * how much of it went; the answer (the page a redirect led to, or the form again with its
 * problems) replaces the page, at the address it came from. A file over its field's limit
 * (`data-fw-max-bytes`) is said at once, before anything is sent; the server checks it anyway.
 * Without the script (or without XMLHttpRequest), the form posts as any form does. No inline
 * script or handler: it runs under `script-src 'self'`. spec/files/upload-client.test.ts
 * type-checks it against the DOM.
 */
export const UPLOAD_SCRIPT = `// @ts-check
(() => {
  "use strict";

  /** @param {number} bytes */
  function sized(bytes) {
    return bytes >= 1e6 ? (bytes / 1e6).toFixed(1) + " MB" : Math.ceil(bytes / 1e3) + " KB";
  }

  /** A file over its field's limit, said beside the field; true when there is one. @param {HTMLFormElement} form */
  function tooLarge(form) {
    let found = false;
    for (const input of Array.from(form.querySelectorAll('input[type="file"][data-fw-max-bytes]'))) {
      const field = /** @type {HTMLInputElement} */ (input);
      const most = Number(field.getAttribute("data-fw-max-bytes"));
      const file = field.files && field.files[0];
      const old = field.parentElement && field.parentElement.querySelector(".fw-upload-error");
      if (old) old.remove();
      if (!file || !(file.size > most)) continue;
      const note = document.createElement("p");
      note.className = "fw-field-error fw-upload-error";
      note.textContent = file.name + " is " + sized(file.size) + ": this field takes files up to " + sized(most) + ".";
      field.after(note);
      found = true;
    }
    return found;
  }

  /** @param {HTMLFormElement} form */
  function enhance(form) {
    if (form.dataset["fwUploading"] !== undefined) return;
    form.dataset["fwUploading"] = "ready";
    form.addEventListener("submit", (event) => {
      if (event.defaultPrevented || typeof XMLHttpRequest !== "function") return;
      if (tooLarge(form)) return event.preventDefault();
      const submitter = /** @type {SubmitEvent} */ (event).submitter;
      const body = new FormData(form, submitter instanceof HTMLElement ? submitter : null);
      event.preventDefault();
      const button = form.querySelector('[type="submit"]');
      const progress = document.createElement("progress");
      progress.className = "fw-upload-progress";
      progress.max = 100;
      progress.value = 0;
      if (button instanceof HTMLButtonElement) (button.disabled = true), button.after(progress);
      else form.append(progress);
      const xhr = new XMLHttpRequest();
      xhr.upload.addEventListener("progress", (e) => {
        if (e.lengthComputable) progress.value = Math.round((e.loaded / e.total) * 100);
      });
      xhr.addEventListener("load", () => {
        const address = xhr.responseURL;
        document.open();
        document.write(xhr.responseText);
        document.close();
        // A redirect was followed (Create or Update done): the address is the page's, as after a normal post.
        if (address && address !== location.href) history.pushState(null, "", address);
        window.onpopstate = () => location.reload();
      });
      xhr.addEventListener("error", () => {
        // The connection failed: send it the plain way, so the browser says what went wrong.
        progress.remove();
        if (button instanceof HTMLButtonElement) button.disabled = false;
        form.dataset["fwUploading"] = "off";
        HTMLFormElement.prototype.submit.call(form);
      });
      xhr.open("POST", form.action);
      xhr.send(body);
    });
  }

  const start = () => document.querySelectorAll("form[data-fw-upload]").forEach((form) => enhance(/** @type {HTMLFormElement} */ (form)));
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
`;
