package spec

// Requirement is one sentence of browser-control v1 that tests and the
// conformance checker cite by ID. Section is the spec section ("3", "8.2");
// Text quotes the spec, lightly shortened.
type Requirement struct {
	ID      string
	Section string
	Text    string
}

// Requirements returns the catalogue in spec order, as a fresh copy the
// caller may change.
func Requirements() []Requirement {
	return []Requirement{
		{"BC-3-poppy-json", "3", "A Company that supports this extension lists it in extensions in its poppy.json, with web.browser_session_endpoint."},
		{"BC-3-header", "3", `A Personal Agent that supports this extension declares it in Poppy-Extensions: "browser-control";v="1".`},
		{"BC-3-browser-requests", "3", "A browser's requests declare the extensions that step 2 of its browser join declared."},
		{"BC-3-support", "3", "Support means that the Personal Agent leaves marked steps to the User (4), hands control to the User (5), and provides navigator.poppy.controller (6)."},
		{"BC-3-undeclared", "3", "A Personal Agent that doesn't declare this version may not read the marks at all. For its browser, the Company handles the step as it would without the extension."},
		{"BC-4-attribute", "4", "The Company marks a step with the data-poppy-user-step attribute."},
		{"BC-4-interaction-control", "4", "interaction on a control: the Personal Agent's browser can read it, and leaves changing or activating it to the User."},
		{"BC-4-interaction-form", "4", "interaction on a form: the Personal Agent's browser can read it, and leaves its controls, and submitting it, to the User."},
		{"BC-4-submission-form", "4", "submission on a form: the Personal Agent's browser can fill in its controls, unless other marks say not to, and leaves submitting it to the User."},
		{"BC-4-form-owner", "4", "A form's controls are the ones it owns in HTML, including controls outside it that name it in their form attribute."},
		{"BC-4-marks-add-up", "4", "Marks add up. A control inside a submission form can also be marked interaction. A marked control doesn't mark the rest of its form."},
		{"BC-4-values", "4", "A value other than interaction or submission, or submission on anything but a form, counts as interaction."},
		{"BC-4-mark-all", "4", "The Company SHOULD mark every control that performs the step, or the form it is in, and SHOULD mark them before they can be used."},
		{"BC-4-fill-not-perform", "4", "The Company SHOULD NOT let filling in a submission form perform the step itself."},
		{"BC-4-server-checks", "4", "Whatever it marks, the Company's servers MUST check the action's conditions themselves, because marks don't stop anything (8.1)."},
		{"BC-5-no-marked-step", "5", "A Personal Agent that declares this extension SHOULD NOT take a marked step: change or activate a control that a mark covers, or submit a form that a mark covers, whether with a click, a key press, an accessibility action, a script, or a WebMCP tool."},
		{"BC-5-no-mark-tampering", "5", "It SHOULD NOT remove or change marks to get around them."},
		{"BC-5-offer", "5", "When it reaches a marked step, the Personal Agent tells the User which step is theirs and offers them control of the browser. It MAY instead leave the step undone and continue with other work."},
		{"BC-5-untrusted", "5", "What the page says about the step is content from the Company (spec 10.1)."},
		{"BC-5-no-model-actions", "5", "While the User holds control, the Personal Agent's software MUST NOT carry out browser actions from its model. The website's own scripts keep running."},
		{"BC-5-only-user-ends", "5", "Only the User ends their control, by handing it back or cancelling. A timeout, a change to the page's marks, or anything the Company sends MUST NOT end it."},
		{"BC-5-no-waiting", "5", "The Personal Agent MUST NOT keep its own requests, or its conversation with the User, waiting until the User acts."},
		{"BC-5-reobserve", "5", "When the User hands control back, the Personal Agent looks at the page again before it continues."},
		{"BC-6-controller", "6", `On pages of the Company's website, in a browser joined to a Session that declared this version, the Personal Agent's software provides navigator.poppy.controller, a read-only string: "user" while the User holds control, "agent" otherwise.`},
		{"BC-6-undefined-without", "6", "In a browser without the extension, navigator.poppy is undefined."},
		{"BC-6-software-sets", "6", "The Personal Agent's software, not its model, sets the value, and changes it as soon as control changes."},
		{"BC-6-company-only", "6", "It provides navigator.poppy only on the Company's website, on the hosts of organization.domain and its subdomains, so other websites can't tell that the browser is a Personal Agent's."},
		{"BC-6-not-relied-on", "6", `A Company MAY record the value with the action, or use it to choose what its page does. It MUST NOT rely on "user" as a guarantee that the User took the step.`},
		{"BC-8.1-signals", "8.1", "A mark asks the Personal Agent to leave a step to the User. It doesn't stop a Personal Agent that doesn't support this extension, or one that ignores it."},
		{"BC-8.2-not-a-guarantee", "8.2", "A Personal Agent that follows this extension sets navigator.poppy.controller correctly. But the value isn't signed, and anything that runs in the page can change what the page reads."},
		{"BC-8.3-agent-browser", "8.3", "Handing control to the User doesn't join the User's own browser to a Session. The browser stays the Personal Agent's, and its requests still belong to the Session."},
	}
}

// RequirementByID returns the requirement with that ID.
func RequirementByID(id string) (Requirement, bool) {
	for _, r := range Requirements() {
		if r.ID == id {
			return r, true
		}
	}
	return Requirement{}, false
}
