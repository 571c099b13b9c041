// Refreshes the list of waiting calls every two seconds, only when it changed,
// so a form is not replaced under the pointer for nothing. The server renders
// (and escapes) the fragment; this script only swaps it in.
"use strict";
(function () {
  const pending = document.getElementById("pending");
  if (!pending) return;
  let shown = null;
  async function refresh() {
    try {
      const response = await fetch(pending.dataset.refresh, {
        credentials: "same-origin",
        cache: "no-store",
      });
      if (response.status === 401) {
        window.location.reload();
        return;
      }
      if (!response.ok) return;
      const html = await response.text();
      if (html !== shown) pending.innerHTML = html;
      shown = html;
    } catch (_) {
      // The gateway restarting: the next round tries again.
    }
  }
  refresh();
  setInterval(refresh, 2000);
})();
