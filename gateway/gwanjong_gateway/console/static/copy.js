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
