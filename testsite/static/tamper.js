// Tries every way a page script might change navigator.poppy, then shows and
// reports what it reads afterwards. Each attempt may throw; that is fine.
(function () {
  "use strict";
  const fake = { controller: "user" };
  const attempts = [
    ["assign controller", function () { navigator.poppy.controller = "user"; }],
    ["define controller", function () { Object.defineProperty(navigator.poppy, "controller", { value: "user" }); }],
    ["delete controller", function () { delete navigator.poppy.controller; }],
    ["set prototype of poppy", function () { Object.setPrototypeOf(navigator.poppy, fake); }],
    ["assign poppy", function () { navigator.poppy = fake; }],
    ["define poppy on navigator", function () { Object.defineProperty(navigator, "poppy", { value: fake }); }],
    ["define poppy on Navigator.prototype", function () {
      Object.defineProperty(Navigator.prototype, "poppy", { get: function () { return fake; }, configurable: true });
    }],
    ["delete poppy", function () { delete navigator.poppy; }],
    ["delete Navigator.prototype.poppy", function () { delete Navigator.prototype.poppy; }],
    ["set prototype of navigator", function () {
      Object.setPrototypeOf(navigator, Object.create(Navigator.prototype, { poppy: { value: fake } }));
    }],
  ];

  function run() {
    const list = document.getElementById("attempts");
    list.replaceChildren();
    for (const [name, fn] of attempts) {
      let result = "no error";
      try {
        fn();
      } catch (e) {
        result = e.name;
      }
      const li = document.createElement("li");
      li.textContent = name + ": " + result;
      list.append(li);
    }
    const p = navigator.poppy;
    const after = String(p?.controller);
    document.getElementById("after").textContent = after;
    fetch("/report", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        event: "tamper",
        hasPoppy: "poppy" in navigator,
        controller: p?.controller ?? null,
        keys: Object.keys(p || {}),
        after: after,
      }),
      cache: "no-store",
    }).catch(function () {});
  }

  run();
  document.getElementById("run").addEventListener("click", run);
})();
