// The console's only script: "Copy text" buttons copy the text of the element they name
// (a hidden textarea holding the exact text, whole, footer included: not the marked view).
"use strict";
document.addEventListener("click", function (event) {
  var button = event.target.closest && event.target.closest("button.copy");
  if (!button) return;
  var source = document.getElementById(button.getAttribute("data-copy"));
  if (!source || !navigator.clipboard) return;
  var text = "value" in source ? source.value : source.textContent;
  navigator.clipboard.writeText(text).then(function () {
    button.textContent = "Copied";
  }, function () {
    button.textContent = "Select the text and copy it";
  });
});

// The navigation's counts of what waits (approvals, hand-offs, new summons), from
// /counts.json (the same session): on load, every 15 s, and when the window is focused
// again. A count of 0, or none, shows nothing.
function refreshCounts() {
  var nav = document.querySelector("nav[data-counts]");
  if (!nav || !window.fetch) return;
  fetch(nav.getAttribute("data-counts"), {
    credentials: "same-origin",
    headers: { Accept: "application/json" },
    redirect: "error",
  }).then(function (response) {
    return response.ok ? response.json() : null;
  }).then(function (counts) {
    if (!counts) return;
    nav.querySelectorAll("[data-count]").forEach(function (badge) {
      var n = counts[badge.getAttribute("data-count")];
      badge.textContent = typeof n === "number" && n > 0 ? String(n) : "";
    });
  }).catch(function () {});
}
document.addEventListener("DOMContentLoaded", function () {
  refreshCounts();
  setInterval(refreshCounts, 15000);
});
window.addEventListener("focus", refreshCounts);
