package spec

// Names fixed by browser-control v1 and the Poppy core specification.
const (
	// ExtensionName is the extension's name in poppy.json and Poppy-Extensions.
	ExtensionName = "browser-control"
	// ExtensionVersion is the version this package implements.
	ExtensionVersion = "1"
	// HeaderExtensions is the request header that declares extensions (spec 3.4).
	HeaderExtensions = "Poppy-Extensions"
	// MarkAttribute is the attribute by which a Company marks a step (section 4).
	MarkAttribute = "data-poppy-user-step"
	// WellKnownPath is where a Company serves its poppy.json.
	WellKnownPath = "/.well-known/poppy.json"
	// BrowserJWTType is the JWT "typ" of the browser join credential (draft 0.1).
	BrowserJWTType = "poppy-browser+jwt"
)

// MarkKind is what a mark leaves to the User (section 4).
type MarkKind string

// Mark kinds.
const (
	// Interaction leaves changing or activating a control, or a whole form, to the User.
	Interaction MarkKind = "interaction"
	// Submission leaves submitting a form to the User; its controls may be filled in.
	Submission MarkKind = "submission"
)

// KindOf returns the kind a mark value counts as, following section 4: the
// exact (case-sensitive) value "submission" on a form is [Submission]; every
// other value, and "submission" on anything but a form, is [Interaction].
func KindOf(value string, onForm bool) MarkKind {
	if value == string(Submission) && onForm {
		return Submission
	}
	return Interaction
}

// Controller says who controls the browser, as navigator.poppy.controller
// and the tool results spell it.
type Controller string

// Controllers.
const (
	ControllerAgent Controller = "agent"
	ControllerUser  Controller = "user"
)

// Outcome is the outcome of an action tool (docs/reference.md).
type Outcome string

// Outcomes.
const (
	OutcomeDone   Outcome = "done"
	OutcomeDenied Outcome = "denied"
	OutcomeFailed Outcome = "failed"
)

// Reason is why an action tool was denied, or the code of its failure
// (docs/reference.md). The constants below are every reason a result carries;
// none is spelled anywhere else.
type Reason string

// Denial reasons (outcome "denied").
const (
	ReasonUserStep       Reason = "user_step"
	ReasonUserHasControl Reason = "user_has_control"
	ReasonStaleRef       Reason = "stale_ref"
	ReasonNoSuchRef      Reason = "no_such_ref"
	// ReasonNoSuchTool: browser_webmcp_call named a tool the page does not
	// list (browser_webmcp_list).
	ReasonNoSuchTool Reason = "no_such_tool"
)

// Failure codes (outcome "failed").
const (
	ReasonBadArgument  Reason = "bad_argument" // the input does not fit the action
	ReasonBadURL       Reason = "bad_url"      // not an http or https URL
	ReasonNavigation   Reason = "navigation"   // the page did not load
	ReasonTimeout      Reason = "timeout"      // the action ran out of time
	ReasonNotVisible   Reason = "not_visible"  // the element has no box to act on
	ReasonObscured     Reason = "obscured"     // another element covers the click point
	ReasonPageError    Reason = "page_error"   // the page could not be read or driven
	ReasonNoPage       Reason = "no_page"      // there is no page to act on
	ReasonNoHistory    Reason = "no_history"   // nothing to go back or forward to
	ReasonBrowserGone  Reason = "browser_gone" // the browser closed or crashed
	ReasonCrashed      Reason = "crashed"      // the tab's renderer crashed
	ReasonPageBusy     Reason = "page_busy"    // the page did not answer in time
	ReasonDialogOpen   Reason = "dialog_open"  // a dialog holds the tab
	ReasonTabClosed    Reason = "tab_closed"   // the tab closed under the action
	ReasonNoDialog     Reason = "no_dialog"    // nothing to answer
	ReasonNoSuchTab    Reason = "no_such_tab"  // no tab at that index
	ReasonUnsupported  Reason = "unsupported"  // the browser lacks the feature (WebMCP)
	ReasonShuttingDown Reason = "shutting_down"
	// ReasonBrowserUnavailable: the session's browser could not start.
	ReasonBrowserUnavailable Reason = "browser_unavailable"
	// ReasonCompanyUnreachable: the Company's site did not answer when the
	// runtime started; it is tried again for a while, and the Session joins
	// once the Company answers.
	ReasonCompanyUnreachable Reason = "company_unreachable"
	// ReasonInternal: the runtime failed on this call (a bug, logged with
	// its stack); the session goes on.
	ReasonInternal Reason = "internal"
	// ReasonAuditUnavailable: the audit log cannot be written, so no agent
	// action runs until it can.
	ReasonAuditUnavailable Reason = "audit_unavailable"
	// ReasonBadRequestState: a retry of an input-required result (MCP
	// 2026-07-28) carried a requestState this server did not give this
	// session for its open offer, or one already answered (each is
	// single-use).
	ReasonBadRequestState Reason = "bad_request_state"
)

// Failure codes of the built-in agent loop's steps that ran no browser
// action, and of its own actions (package agent).
const (
	ReasonModelError     Reason = "model_error"     // the model call failed
	ReasonBadReply       Reason = "bad_reply"       // the reply could not be read as a step
	ReasonControlChanged Reason = "control_changed" // control changed hands while the model decided
	ReasonNoUser         Reason = "no_user"         // ask_user with no User to ask
	ReasonNoAnswer       Reason = "no_answer"       // the User did not answer ask_user
)

// MCP tool names of the tools that offer control to the User
// (docs/reference.md). The browser actions' tool names are generated from
// their declarations in package gate (tools_gen.go).
const (
	ToolRequestUserControl = "browser_request_user_control"
	ToolControlStatus      = "browser_control_status"
	ToolWaitForControl     = "browser_wait_for_control"
)
