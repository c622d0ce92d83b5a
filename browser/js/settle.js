// settle resolves once a task queued now has run: by then the page has
// reported any navigation that the input before it started.
function settle() {
  return new Promise(function (done) {
    const c = new MessageChannel();
    c.port1.onmessage = function () { done(); };
    c.port2.postMessage(0);
  });
}
