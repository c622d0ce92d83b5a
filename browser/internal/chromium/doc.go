// Package chromium starts the Chromium that package browser drives: our own
// flag list (site isolation stays on, unlike chromedp's defaults), an
// allowlisted environment (package childenv: the runtime's secrets stay out
// of the processes that run page content), finding the binary, and the
// process itself.
//
// A [Process] runs in its own process group with a DevTools pipe. [Process.Stop]
// kills the whole group (Chromium's helpers outlive the main process and
// write the profile), waits until none is left, and only then removes the
// temporary profile. A temporary profile carries its owner's pid in its
// name; [Start] removes those whose owner is gone, so a runtime killed
// before it could clean up leaves no profile (cookies) behind past the next
// start. The process is ended with us (Pdeathsig) if we die first.
//
// It speaks no CDP beyond handing back the pipe.
package chromium
