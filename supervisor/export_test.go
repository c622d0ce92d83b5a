package supervisor

import "github.com/poppy-browser/poppy-browser/browser"

// Browser is the browser new Sessions open on, for tests that count its
// tabs (nil while none is attached). The runtime hands it to nobody else.
func (s *Server) Browser() *browser.Browser { return s.currentBrowser() }

// Browser is the Supervisor's browser, for tests.
func (s *Supervisor) Browser() *browser.Browser { return s.srv.currentBrowser() }
