package check

import "slices"

// FindingKind describes one kind of finding: its stable id
// ([Finding.ID]), the check that makes it, and what a report shows as
// its title (said as what a good page does, as Lighthouse's audits are)
// and description (why it matters and how to fix it).
type FindingKind struct {
	ID          string
	Check       string
	Title       string
	Description string
}

// findingKinds is the catalogue, by id. An id never changes meaning; a
// new kind gets a new id. Where check does what a Lighthouse agentic
// audit does, the id is that audit's (webmcp-schema-validity).
var findingKinds = func() map[string]FindingKind {
	m := map[string]FindingKind{}
	for _, k := range kindList {
		m[k.ID] = k
	}
	return m
}()

var kindList = []FindingKind{
	{"discovery-failed", CheckDiscovery, "The Company's poppy.json declares browser-control v1",
		"An agent discovers the Company from /.well-known/poppy.json; without browser-control v1 there it does not honour the page's marks."},
	{"discovery-warning", CheckDiscovery, "The Company's poppy.json has no warnings", "Discovery read poppy.json but found something to fix."},
	{"discovery-skipped", CheckDiscovery, "The page's host has a poppy.json to discover", "A development host or an IP address has no discovery; check the deployed page for it."},
	{"mark-submission-not-form", CheckMarks, "A submission mark is on a form", "A submission mark on anything but a form counts as interaction: every control in it becomes the User's."},
	{"mark-unknown-value", CheckMarks, "Every mark has a known value", "A value other than interaction or submission counts as interaction."},
	{"mark-covers-nothing", CheckMarks, "Every mark covers a control", "A mark that covers no control leaves nothing to the User."},
	{"mark-suggested", CheckMarks, "Controls that look like the User's step are marked", "A password, a card number, a consent box or a Pay button is usually the User's step: mark it, or an agent may take it."},
	{"mark-late", CheckLateMarks, "Marks are there before their controls can be used", "A control shown usable before its mark appeared can be used by an agent in between: put the mark in the HTML."},
	{"fill-submits", CheckFill, "Filling a submission form does not submit it", "Filling in (changing, leaving, checking) a control of a submission form must not submit it: that performs the step the mark leaves to the User."},
	{"submit-route", CheckSubmitPaths, "A marked form can be submitted only through its marked step", "Another submitter, or Enter in a field, submits the form the marked control submits: an agent takes the step that way. Mark the form submission, or the control."},
	{"submit-route-probed", CheckSubmitPaths, "Unmarked controls do not submit a marked form", "A click or a key on a control no mark covers submitted a marked form (the checker tried it): mark the control."},
	{"submit-route-script", CheckSubmitPaths, "Scripts do not submit a marked form from unmarked controls", "A script submits the marked form from a control no mark covers (the checker tried it): mark the control, or the form submission."},
	{"submit-route-script-untried", CheckSubmitPaths, "Unmarked buttons of a marked form do not submit it", "A button of the form with no action of its own may submit the form by a script; the checker could not try it."},
	{"field-shares-marked-name", CheckSubmitPaths, "No unmarked field shares a marked field's name", "The form sends both values under that name: a server that reads the unmarked one takes the User's value from a control an agent may change."},
	{"probe-unsettled", CheckSubmitPaths, "The page settles after an agent's input", "The page kept changing after the checker's input, so what it caused later is not ruled out."},
	{"controller-read", CheckController, "The page does not rely on navigator.poppy.controller", "Reading the controller is allowed, but it is not a guarantee that the User took the step: check the action's conditions on the server."},
	{"controller-read-on-submit", CheckController, "The page does not rely on the controller it reads on submit", "Reading the controller when a form is submitted is allowed, but it is not a guarantee."},
	{"controller-changes-view", CheckController, "The page shows the agent and the User the same thing", "A page may show the agent something else, but must not rely on \"user\" as a guarantee."},
	{"controller-in-request", CheckController, "The request of a marked form records who was in control", "Sending the controller is optional; recording it helps, relying on it does not."},
	{"webmcp-autosubmit-marked", CheckWebMCP, "No WebMCP tool autosubmits a marked form", "A declarative tool with toolautosubmit on a form a mark covers performs the User's step by being filled: remove toolautosubmit."},
	{"webmcp-tool-definition", CheckWebMCP, "Every WebMCP tool has a name, a description and named, labelled parameters",
		"An agent picks a tool by its name and description and fills its parameters by their names and labels: a declarative form needs toolname and tooldescription, each field a name and a label; registerTool needs a name and a description."},
	{"webmcp-schema-validity", CheckWebMCP, "Every WebMCP tool's input schema is valid JSON Schema for an object",
		"An agent's client builds a tool's arguments from its input schema: registerTool's inputSchema must be JSON Schema that resolves, of type \"object\"."},
	{"webmcp-tool-takes-step", CheckWebMCP, "No WebMCP tool takes a marked step", "An imperative tool whose script reaches a marked step performs it for an agent: let it fill, and leave the step to the User."},
}

// FindingIDs is the catalogue of finding kinds, a fresh copy in order.
func FindingIDs() []FindingKind { return slices.Clone(kindList) }
