// fields.js: what a field holds, its value and its checked state as a
// person left them; and clip, which cuts a page's text to a budget.
// A fragment of the marks scanner (see prelude.js): one namespace, its
// imports the const lines at its top, its exports the object it returns.

  const Fields = (() => {
    const { attr } = Dom;

    const clip = (s, n) => {
      s = s.replace(/\s+/g, " ").trim();
      return s.length > n ? s.slice(0, n - 1) + "…" : s;
    };
    const VALUE_MAX = 1000;
    function valueOf(el) {
      if (el instanceof HTMLInputElement) return /^(password|hidden|file|checkbox|radio|submit|reset|button|image)$/.test(el.type) ? "" : el.value;
      if (el instanceof HTMLSelectElement) return Array.from(el.selectedOptions, (o) => o.value).join(", ");
      if (el instanceof HTMLTextAreaElement) return el.value;
      if (el.isContentEditable) return clip(el.textContent, VALUE_MAX);
      return "";
    }
    function checkedOf(el) {
      if (el instanceof HTMLInputElement && (el.type === "checkbox" || el.type === "radio")) return el.checked;
      const v = attr(el, "aria-checked");
      return v === "true" ? true : v === "false" ? false : undefined;
    }
    return { clip, VALUE_MAX, valueOf, checkedOf };
  })();
