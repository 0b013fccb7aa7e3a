"""The approval card's HTML (`ui://gwanjong/approval.html`): self-contained, talks only to
its host by MCP Apps postMessage; every value set with `textContent`, as `card.shown` drew it
(and a decision's outcome as `apps.outcome` drew it).
"""

from __future__ import annotations

CARD_HTML = r"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>gwanjong approval</title>
<style>
body{font-family:system-ui,sans-serif;margin:0;padding:.8em;font-size:14px}
.text{white-space:pre-wrap;overflow-wrap:anywhere;border:1px solid #999;padding:.6em;
unicode-bidi:isolate;max-height:18em;overflow:auto}
textarea{width:100%;box-sizing:border-box;min-height:8em;font:inherit}
dt{font-weight:bold}dd{margin:0 0 .4em 0}.error{color:#b00}.done{color:#060}
button{font-size:1em;margin:.6em .6em 0 0}[hidden]{display:none}
</style></head>
<body>
<p id="state">Waiting for the strike result...</p>
<div id="card" hidden>
  <dl>
    <dt>What</dt><dd id="where"></dd>
    <dt>Target</dt><dd><span id="target"></span> <button id="open" type="button" hidden>Open</button></dd>
    <dt>Sent as</dt><dd id="as"></dd>
    <dt id="also-label" hidden>Also sent</dt><dd id="also" class="text" hidden></dd>
    <dt id="links-label" hidden>Links</dt><dd id="links" class="text" hidden></dd>
    <dt id="title-label" hidden>Title</dt><dd id="title" class="text" hidden></dd>
    <dt id="tags-label" hidden>Tags</dt><dd id="tags" hidden></dd>
    <dt>Length</dt><dd id="length"></dd>
    <dt>Expires</dt><dd id="expires"></dd>
  </dl>
  <p id="title-marks" class="error" hidden></p>
  <p id="marks" class="error" hidden></p>
  <div>The exact text that will be sent:</div>
  <div id="text" class="text"></div>
  <details><summary>Edit before approving</summary>
    <textarea id="edit" spellcheck="true"></textarea>
    <div>Keep the disclosure footer at the end.</div>
  </details>
  <button id="approve" type="button">Approve and send</button>
  <button id="decline" type="button">Decline: send nothing</button>
</div>
<p id="outcome"></p>
<script>
(function () {
  "use strict";
  var TOOL = "approval_decide";
  var META = "io.github.gwanjong/approval";
  var nextId = 1;
  var waiting = {};
  var current = null;

  function $(id) { return document.getElementById(id); }
  function post(message) { window.parent.postMessage(message, "*"); }
  function request(method, params) {
    var id = nextId++;
    post({ jsonrpc: "2.0", id: id, method: method, params: params });
    return new Promise(function (resolve, reject) { waiting[id] = [resolve, reject]; });
  }
  function notify(method, params) { post({ jsonrpc: "2.0", method: method, params: params }); }
  function resize() {
    notify("ui/notifications/size-changed",
      { width: document.body.scrollWidth, height: document.body.scrollHeight });
  }
  function webLink(url) {
    try { var u = new URL(url); return (u.protocol === "http:" || u.protocol === "https:") ? u.href : ""; }
    catch (e) { return ""; }
  }
  function say(id, text, cls) { var el = $(id); el.textContent = text; el.className = cls || ""; }

  function show(result) {
    if (!result || typeof result !== "object") { return; }
    var r = result.structuredContent ? result : (result.result || result);
    var data = r.structuredContent || {};
    var card = (r._meta || {})[META];
    if (data.status !== "pending_approval" || !card || !card.token) {
      say("state", data.status === "pending_approval"
        ? "This approval waits for you in the gateway's terminal: gwanjong review list."
        : "Nothing to approve here.");
      resize();
      return;
    }
    current = card;
    var shown = card.shown || {};
    $("state").hidden = true;
    $("card").hidden = false;
    $("where").textContent = card.where || "";
    $("target").textContent = shown.target || "a new post";
    var link = webLink(card.target || "");
    $("open").hidden = !link;
    $("open").onclick = function () { request("ui/open-link", { url: link }).catch(function () {}); };
    if (card.title) { $("title").textContent = shown.title || ""; $("title").hidden = false; $("title-label").hidden = false; }
    $("as").textContent = shown.as || "";
    ["also", "links"].forEach(function (row) {  // what else is sent; where each link leads
      if (!(shown[row] && shown[row].length)) return;
      $(row).textContent = shown[row].join("\n"); $(row).hidden = false; $(row + "-label").hidden = false;
    });
    if (shown.tags) {  // a new post's: every tag, drawn by the server's renderer
      $("tags").textContent = shown.tags.length ? shown.tags.join(", ") : "(none)";
      $("tags").hidden = false; $("tags-label").hidden = false;
    }
    $("length").textContent = shown.length || "";
    $("expires").textContent = card.expires_at || "";
    if (shown.title_warning) { say("title-marks", "Title: " + shown.title_warning, "error"); $("title-marks").hidden = false; }
    if (shown.warning) { say("marks", shown.warning, "error"); $("marks").hidden = false; }
    $("text").textContent = shown.text || "(no text: an upvote)";
    $("edit").value = card.text;
    resize();
  }

  function decide(decision) {
    if (!current) { return; }
    var args = { approval_id: current.id, token: current.token, decision: decision };
    // untrimmed: the server trims as it trimmed the text (a script's trim() cuts U+FEFF too)
    var edited = $("edit").value.replace(/\r\n/g, "\n");
    if (decision === "approve" && current.text && edited !== current.text) { args.text = edited; }
    $("approve").disabled = true;
    $("decline").disabled = true;
    say("outcome", "Sending your decision...");
    request("tools/call", { name: TOOL, arguments: args }).then(function (res) {
      var data = (res && res.structuredContent) || {};
      if (res && res.isError) {
        var text = (res.content && res.content[0] && res.content[0].text) || "refused";
        say("outcome", "Not done: " + text, "error");
      } else if (data.status === "posted") {
        say("outcome", "Approved and sent" + (data.url ? ": " + data.url : "."), "done");
      } else if (data.status === "declined") {
        say("outcome", "Declined: nothing was sent.", "done");
      } else {
        say("outcome", "Approved, but not sent (" + data.status + "): " + (data.reason || ""), "error");
      }
      current = null;
      resize();
    }, function (err) {
      say("outcome", "The host could not send the decision: " + ((err && err.message) || "error"), "error");
      $("approve").disabled = false;
      $("decline").disabled = false;
      resize();
    });
  }

  window.addEventListener("message", function (event) {
    if (event.source !== window.parent) { return; }
    var m = event.data;
    if (!m || m.jsonrpc !== "2.0") { return; }
    if (m.method === undefined && m.id !== undefined) {
      var w = waiting[m.id];
      if (w) { delete waiting[m.id]; if (m.error) { w[1](m.error); } else { w[0](m.result); } }
      return;
    }
    if (m.method === "ui/notifications/tool-result") { show(m.params); }
    else if (m.id !== undefined && (m.method === "ui/resource-teardown" || m.method === "ping")) {
      post({ jsonrpc: "2.0", id: m.id, result: {} });
    }
  });
  $("approve").onclick = function () { decide("approve"); };
  $("decline").onclick = function () { decide("decline"); };
  request("ui/initialize", {
    protocolVersion: "2026-01-26",
    appInfo: { name: "gwanjong-approval", version: "1" },
    appCapabilities: {}
  }).then(function () { notify("ui/notifications/initialized", {}); resize(); },
          function () { say("state", "The host did not start this card."); });
})();
</script>
</body></html>
"""
