// Keeps a page current without reloading it: every few seconds, fetch the
// same URL as a fragment (the server renders only the page's <main>) and
// swap it in. Stops when the session is gone; waits while a form in the
// page has focus, so a click is never lost to a refresh.
(function () {
  "use strict";
  const main = document.querySelector("main[data-refresh]");
  if (!main) return;
  const every = Number(main.dataset.refresh) || 2000;
  const stamp = document.getElementById("updated");
  async function refresh() {
    if (document.activeElement && main.contains(document.activeElement) &&
        document.activeElement.closest("form")) {
      setTimeout(refresh, every);
      return;
    }
    try {
      const r = await fetch(location.pathname, {
        headers: { "X-Mrsched-Fragment": "1" },
        credentials: "same-origin",
        cache: "no-store",
      });
      if (r.status === 401) {
        if (stamp) stamp.textContent = "Signed out: reload the page to sign in.";
        return;
      }
      if (r.ok) {
        main.innerHTML = await r.text();
        if (stamp) stamp.textContent = "Updated " + new Date().toLocaleTimeString();
      }
    } catch (e) {
      if (stamp) stamp.textContent = "The master does not answer; retrying.";
    }
    setTimeout(refresh, every);
  }
  setTimeout(refresh, every);
})();
