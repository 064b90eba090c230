// The page a browser without the session cookie gets. Opened by the entry file, its
// address holds the one-time key after "#k=": the key is posted to the program, which
// answers with the cookie, and the browser goes on to the table's plain address.
"use strict";

(() => {
  const key = new URLSearchParams(location.hash.slice(1)).get("k");
  if (!key) return;
  history.replaceState(null, "", location.pathname); // the key leaves the address bar at once
  const used = () => {
    document.getElementById("door-text").hidden = true;
    document.getElementById("door-used").hidden = false;
  };
  fetch("enter", { method: "POST", body: key, cache: "no-store" })
    .then((answer) => (answer.ok ? location.replace(location.pathname) : used()))
    .catch(used);
})();
