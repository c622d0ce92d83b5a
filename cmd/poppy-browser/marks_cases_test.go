package main

// The fixture table of issue 3: action x element -> outcome and mark, over
// MCP in real Chromium, on the pages of testsite under /fixtures/marks/.

// Rules of browser-control v1 (docs/requirements.md) the cases
// check, each opening with its ID in spec.Requirements.
const (
	sInteractionControl = "BC-4-interaction-control: interaction on a control: Can read it. Leaves changing or activating it to the User."
	sInteractionForm    = "BC-4-interaction-form: interaction on a form: Can read it. Leaves its controls, and submitting it, to the User."
	sSubmissionFill     = "BC-4-submission-form: submission on a form: Can fill in its controls, unless other marks say not to."
	sSubmissionSubmit   = "BC-4-submission-form: submission on a form: Leaves submitting it to the User."
	sOwned              = "BC-4-form-owner: A form's controls are the ones it owns in HTML, including controls outside it that name it in their form attribute."
	sAddUp              = "BC-4-marks-add-up: Marks add up. A control inside a submission form can also be marked interaction."
	sNoSpread           = "BC-4-marks-add-up: A marked control doesn't mark the rest of its form."
	sOtherValue         = "BC-4-values: A value other than interaction or submission ... counts as interaction."
	sSubmissionElse     = "BC-4-values: ... or submission on anything but a form, counts as interaction."
	sSection5           = "BC-5-no-marked-step: SHOULD NOT take a marked step: change or activate a control that a mark covers, or submit a form that a mark covers, whether with a click, a key press, ..."
	sSection5Script     = "BC-5-no-marked-step: ... whether with a click, a key press, an accessibility action, a script, or a WebMCP tool."
	sRead               = "BC-4-interaction-control: Can read it (scrolling and reading are allowed everywhere)."
	sFresh              = "BC-5-no-marked-step: marks are read at the moment of the action (issue 3: a mark added after the snapshot still stops the action)."

	// The HTML rules the cases of submit.html follow (issue 20), cited by
	// section of the HTML standard.
	hImplicit     = " (HTML 4.10.21.2 implicit submission: the default button is the first submit button in tree order"
	hDisabled     = hImplicit + "; a disabled default button means Enter submits nothing)"
	hFormAttr     = hImplicit + ", form= owners included (4.10.18.3); it is disabled here, so Enter submits nothing)"
	hImage        = hImplicit + "; an image button is one, though form.elements leaves it out (4.10.18.3))"
	hEnter        = " (HTML 4.10.21.2 implicit submission by Enter, in any spelling a client sends it)"
	hSubmitMethod = " (HTML 4.10.21.3 submit a form: form.submit() fires no submit event, only formdata, step 7)"
	hShadow       = " (DOM 2.9: submit and formdata are not composed and stay in the form's shadow tree)"
	hTypeSwitch   = " (HTML 4.10.5.1.18: an input switched to type=submit during the click submits its form; in a shadow tree)"
	hClosedDiv    = " (DOM 4.2.14 attachShadow: a div may host a closed shadow root)"
)

// sel names an element of a snapshot: its role and part of its name.
type sel struct{ role, name string }

// step is one tool call on an element.
type step struct {
	tool   string
	target sel
	args   map[string]any
}

// markCase is one row: on page, after setup, the action gives want.
type markCase struct {
	name      string
	spec      string
	page      string
	setup     []step
	action    step
	want      string // outcome
	reason    string
	kind      string   // mark kind when reason is user_step
	marked    *sel     // the element bearing the mark; nil: the target itself
	guard     bool     // caught by the in-page guard
	anyBearer bool     // the bearer has no stable name (check kind only)
	events    string   // a word the page must have recorded
	noEvents  []string // words the page must not have recorded
}

var (
	click  = func(s sel) step { return step{tool: "browser_click", target: s} }
	typeIn = func(s sel, text string) step {
		return step{tool: "browser_type", target: s, args: map[string]any{"text": text}}
	}
	typeSubmit = func(s sel, text string) step {
		return step{tool: "browser_type", target: s, args: map[string]any{"text": text, "submit": true}}
	}
	pick = func(s sel, v string) step {
		return step{tool: "browser_select", target: s, args: map[string]any{"values": []string{v}}}
	}
	press = func(s sel, key string) step {
		return step{tool: "browser_press_key", target: s, args: map[string]any{"key": key}}
	}
	pressFocused = func(key string) step { return step{tool: "browser_press_key", args: map[string]any{"key": key}} }
	scroll       = func(s sel) step {
		return step{tool: "browser_scroll", target: s, args: map[string]any{"direction": "down", "amount": 100}}
	}
	btn  = func(name string) sel { return sel{"button", name} }
	box  = func(name string) sel { return sel{"textbox", name} }
	form = func(name string) *sel { return &sel{"form", name} }
	div  = func(name string) *sel { return &sel{"generic", name} }
)

var markCases = []markCase{
	// Mark values (kinds.html).
	{name: "click interaction button", spec: sInteractionControl, page: "kinds.html", action: click(btn("Interaction button")), want: "denied", reason: "user_step", kind: "interaction", noEvents: []string{"click:k-interaction"}},
	{name: "click empty mark", spec: sOtherValue, page: "kinds.html", action: click(btn("Empty mark button")), want: "denied", reason: "user_step", kind: "interaction"},
	{name: "click capitalised mark", spec: sOtherValue, page: "kinds.html", action: click(btn("Capitalised mark button")), want: "denied", reason: "user_step", kind: "interaction"},
	{name: "click unknown word mark", spec: sOtherValue, page: "kinds.html", action: click(btn("Unknown word button")), want: "denied", reason: "user_step", kind: "interaction"},
	{name: "click submission on a button", spec: sSubmissionElse, page: "kinds.html", action: click(btn("Submission on a button")), want: "denied", reason: "user_step", kind: "interaction"},
	{name: "click inside submission div", spec: sSubmissionElse, page: "kinds.html", action: click(btn("Inside submission div")), want: "denied", reason: "user_step", kind: "interaction", marked: div("Submission div")},
	{name: "type in marked region", spec: sInteractionControl, page: "kinds.html", action: typeIn(box("Region field"), "x"), want: "denied", reason: "user_step", kind: "interaction", marked: div("Marked region")},
	{name: "click plain button", spec: sSection5, page: "kinds.html", action: click(btn("Plain button")), want: "done", events: "click:k-plain"},
	{name: "click plain link", spec: sSection5, page: "kinds.html", action: click(sel{"link", "Plain link"}), want: "done", events: "click:k-link"},
	{name: "type in interaction form", spec: sInteractionForm, page: "kinds.html", action: typeIn(box("Nickname"), "kim"), want: "denied", reason: "user_step", kind: "interaction", marked: form("interaction form"), noEvents: []string{"input:k-nick"}},
	{name: "submit interaction form", spec: sInteractionForm, page: "kinds.html", action: click(btn("Send interaction form")), want: "denied", reason: "user_step", kind: "interaction", marked: form("interaction form")},
	{name: "type in SUBMISSION-cased form", spec: sOtherValue, page: "kinds.html", action: typeIn(box("Code"), "42"), want: "denied", reason: "user_step", kind: "interaction", marked: form("upper case form")},
	{name: "scroll the page", spec: sRead, page: "kinds.html", action: step{tool: "browser_scroll", args: map[string]any{"direction": "down"}}, want: "done"},
	{name: "scroll a marked element", spec: sRead, page: "kinds.html", action: scroll(btn("Interaction button")), want: "done"},
	{name: "Tab from a marked button", spec: sRead, page: "kinds.html", action: press(btn("Interaction button"), "Tab"), want: "done", noEvents: []string{"click:"}},

	// Form owners (forms.html).
	{name: "fill a submission form's field", spec: sSubmissionFill, page: "forms.html", action: typeIn(box("Card holder"), "Kim Lee"), want: "done", events: "input:holder"},
	{name: "select in a submission form", spec: sSubmissionFill, page: "forms.html", action: pick(sel{"combobox", "Currency"}, "USD"), want: "done", events: "change:currency"},
	{name: "tick a box in a submission form", spec: sSubmissionFill, page: "forms.html", action: click(sel{"checkbox", "Save card"}), want: "done", events: "change:save-card", noEvents: []string{"submit:"}},
	{name: "fill a textarea in a submission form", spec: sSubmissionFill, page: "forms.html", action: typeIn(box("Note"), "window please"), want: "done", events: "input:pay-note"},
	{name: "type into an interaction field of a submission form", spec: sAddUp, page: "forms.html", action: typeIn(box("Security code"), "999"), want: "denied", reason: "user_step", kind: "interaction"},
	{name: "click a button without type", spec: sSubmissionSubmit, page: "forms.html", action: click(btn("Pay now")), want: "denied", reason: "user_step", kind: "submission", marked: form("pay form"), noEvents: []string{"submit:"}},
	{name: "click a widget inside the submit button", spec: sSubmissionSubmit + " (the nearest activatable ancestor)", page: "forms.html", action: click(sel{"switch", "Express payment"}), want: "denied", reason: "user_step", kind: "submission", marked: form("pay form")},
	{name: "click an image input", spec: sSubmissionSubmit, page: "forms.html", action: click(btn("Pay with picture")), want: "denied", reason: "user_step", kind: "submission", marked: form("pay form")},
	{name: "click a formaction button", spec: sSubmissionSubmit, page: "forms.html", action: click(btn("Pay elsewhere")), want: "denied", reason: "user_step", kind: "submission", marked: form("pay form")},
	{name: "click a plain button of a submission form", spec: sSubmissionFill, page: "forms.html", action: click(btn("Preview payment")), want: "done", events: "click:pay-preview", noEvents: []string{"submit:"}},
	{name: "reset a form with a User field", spec: sSubmissionFill + " (reset changes the User's field)", page: "forms.html", action: click(btn("Clear payment")), want: "denied", reason: "user_step", kind: "interaction", marked: &sel{"textbox", "Security code"}, noEvents: []string{"reset:"}},
	{name: "click a submit button outside its form", spec: sOwned, page: "forms.html", action: click(btn("Pay from outside")), want: "denied", reason: "user_step", kind: "submission", marked: form("pay form")},
	{name: "fill a field outside its submission form", spec: sOwned, page: "forms.html", action: typeIn(box("Outside field"), "x"), want: "done", events: "input:pay-outside-field"},
	{name: "Enter in a field outside its submission form", spec: sOwned, page: "forms.html", action: typeSubmit(box("Outside field"), "x"), want: "denied", reason: "user_step", kind: "submission", marked: form("pay form"), noEvents: []string{"input:", "submit:"}},
	{name: "type and submit a submission form", spec: sSubmissionSubmit + " (implicit submission)", page: "forms.html", action: typeSubmit(box("Card holder"), "Kim"), want: "denied", reason: "user_step", kind: "submission", marked: form("pay form"), noEvents: []string{"input:holder"}},
	{name: "press Enter in a submission form", spec: sSubmissionSubmit + " (implicit submission)", page: "forms.html", action: press(box("Card holder"), "Enter"), want: "denied", reason: "user_step", kind: "submission", marked: form("pay form")},
	{name: "type in an interaction form", spec: sInteractionForm, page: "forms.html", action: typeIn(box("Locked inside"), "x"), want: "denied", reason: "user_step", kind: "interaction", marked: form("locked form")},
	{name: "type in a field owned by another form", spec: sOwned + " (form= names another form)", page: "forms.html", action: typeIn(box("Elsewhere"), "x"), want: "done", events: "input:locked-elsewhere"},
	{name: "type in a field whose form= is missing", spec: sOwned + " (form= names no form: no owner)", page: "forms.html", action: typeIn(box("Missing owner"), "x"), want: "done", events: "input:locked-missing"},
	{name: "click a button of an interaction form", spec: sInteractionForm, page: "forms.html", action: click(btn("Locked button")), want: "denied", reason: "user_step", kind: "interaction", marked: form("locked form")},
	{name: "type in a field naming an interaction form", spec: sOwned, page: "forms.html", action: typeIn(box("Outside locked"), "x"), want: "denied", reason: "user_step", kind: "interaction", marked: form("locked form")},
	{name: "click a form-associated custom element", spec: sOwned + " (form-associated custom elements)", page: "forms.html", action: click(box("Custom field")), want: "denied", reason: "user_step", kind: "interaction", marked: form("custom form")},
	{name: "click a free custom element", spec: sOwned, page: "forms.html", action: click(box("Free custom field")), want: "done", events: "click:face-free"},
	{name: "fill a one-field submission form", spec: sSubmissionFill, page: "forms.html", action: typeIn(box("Search words"), "flights"), want: "done", events: "input:search-q"},
	{name: "Enter in a one-field submission form", spec: sSubmissionSubmit + " (implicit submission without a button)", page: "forms.html", action: typeSubmit(box("Search words"), "flights"), want: "denied", reason: "user_step", kind: "submission", marked: form("search form")},
	{name: "Enter in a two-field form without a button", spec: sSubmissionFill + " (Enter submits nothing here)", page: "forms.html", action: typeSubmit(box("First"), "a"), want: "done", events: "key:Enter@two-a", noEvents: []string{"submit:"}},
	{name: "fill an unmarked field next to a marked one", spec: sNoSpread, page: "forms.html", action: typeIn(box("Newsletter name"), "Kim"), want: "done", events: "input:news-name"},
	{name: "submit a form holding a marked control", spec: sNoSpread, page: "forms.html", action: click(btn("Subscribe")), want: "done", events: "submit:news/news-submit"},
	{name: "type into the marked control", spec: sInteractionControl, page: "forms.html", action: typeIn(box("Newsletter email"), "a@b.c"), want: "denied", reason: "user_step", kind: "interaction"},

	// Labels, keys, selects and widgets (activation.html).
	{name: "click inside a label for a marked box", spec: sSection5 + " (the control a label activates, for=)", page: "activation.html", action: click(btn("Offers toggle")), want: "denied", reason: "user_step", kind: "interaction", marked: &sel{"checkbox", "Send me offers"}, noEvents: []string{"change:optin"}},
	{name: "click a link inside that label", spec: sSection5 + " (a link in a label activates only itself)", page: "activation.html", action: click(sel{"link", "offer terms"}), want: "done", events: "click:optin-link", noEvents: []string{"change:optin"}},
	{name: "click inside a wrapping label", spec: sSection5 + " (the control a label activates, wrapping)", page: "activation.html", action: click(btn("Calls toggle")), want: "denied", reason: "user_step", kind: "interaction", marked: &sel{"checkbox", "Marketing calls"}},
	{name: "click inside an unmarked label", spec: sSection5 + " (allowed: label of an unmarked box)", page: "activation.html", action: click(btn("Plain toggle")), want: "done", events: "change:plain-box"},
	{name: "click a marked button", spec: sInteractionControl, page: "activation.html", action: click(btn("Confirm booking")), want: "denied", reason: "user_step", kind: "interaction"},
	{name: "Enter on a marked button", spec: sSection5, page: "activation.html", action: press(btn("Confirm booking"), "Enter"), want: "denied", reason: "user_step", kind: "interaction", noEvents: []string{"click:confirm"}},
	{name: "Space on a marked button", spec: sSection5, page: "activation.html", action: press(btn("Confirm booking"), " "), want: "denied", reason: "user_step", kind: "interaction"},
	{name: "Space on the focused marked button", spec: sSection5 + " (the control Space activates when focused)", page: "activation.html", setup: []step{press(btn("Next to confirm"), "Shift+Tab")}, action: pressFocused(" "), want: "denied", reason: "user_step", kind: "interaction", marked: &sel{"button", "Confirm booking"}, noEvents: []string{"click:confirm"}},
	{name: "Enter on the focused marked button", spec: sSection5 + " (the control Enter activates when focused)", page: "activation.html", setup: []step{press(btn("Next to confirm"), "Shift+Tab")}, action: pressFocused("Enter"), want: "denied", reason: "user_step", kind: "interaction", marked: &sel{"button", "Confirm booking"}},
	{name: "Enter on an unmarked button", spec: sSection5 + " (allowed)", page: "activation.html", action: press(btn("Next to confirm"), "Enter"), want: "done", events: "click:after-confirm"},
	{name: "click a marked link", spec: sInteractionControl, page: "activation.html", action: click(sel{"link", "Marked link"}), want: "denied", reason: "user_step", kind: "interaction"},
	{name: "select in a marked select", spec: sInteractionControl + " (the options of a covered select)", page: "activation.html", action: pick(sel{"combobox", "Meal"}, "Vegetarian"), want: "denied", reason: "user_step", kind: "interaction", noEvents: []string{"change:meal"}},
	{name: "click a marked select", spec: sInteractionControl, page: "activation.html", action: click(sel{"combobox", "Meal"}), want: "denied", reason: "user_step", kind: "interaction"},
	{name: "ArrowDown on a marked select", spec: sSection5, page: "activation.html", action: press(sel{"combobox", "Meal"}, "ArrowDown"), want: "denied", reason: "user_step", kind: "interaction"},
	{name: "select a marked option", spec: sInteractionControl + " (a marked option)", page: "activation.html", action: pick(sel{"combobox", "Cabin"}, "Business"), want: "denied", reason: "user_step", kind: "interaction", anyBearer: true},
	{name: "ArrowDown towards a marked option", spec: sSection5 + " (a key press reaching a marked option)", page: "activation.html", action: press(sel{"combobox", "Cabin"}, "ArrowDown"), want: "denied", reason: "user_step", kind: "interaction", anyBearer: true, noEvents: []string{"change:cabin"}},
	{name: "select in an unmarked select", spec: sSection5 + " (allowed)", page: "activation.html", action: pick(sel{"combobox", "Bags"}, "2"), want: "done", events: "change:bags"},
	{name: "click an option of a marked listbox", spec: sInteractionControl + " (ARIA widget, a descendant)", page: "activation.html", action: click(sel{"option", "Vegetarian option"}), want: "denied", reason: "user_step", kind: "interaction", marked: &sel{"listbox", "Meal choices"}},
	{name: "click an option of a marked combobox", spec: sInteractionControl + " (ARIA combobox, a descendant)", page: "activation.html", action: click(sel{"option", "Amsterdam option"}), want: "denied", reason: "user_step", kind: "interaction", marked: &sel{"combobox", "Airport"}},
	{name: "click a marked ARIA button", spec: sInteractionControl + " (role=button)", page: "activation.html", action: click(btn("Marked ARIA button")), want: "denied", reason: "user_step", kind: "interaction"},
	{name: "Enter on a marked ARIA button", spec: sSection5 + " (role=button, key press)", page: "activation.html", action: press(btn("Marked ARIA button"), "Enter"), want: "denied", reason: "user_step", kind: "interaction"},
	{name: "click a marked ARIA checkbox", spec: sInteractionControl + " (role=checkbox)", page: "activation.html", action: click(sel{"checkbox", "Marked ARIA checkbox"}), want: "denied", reason: "user_step", kind: "interaction"},
	{name: "Space on a marked ARIA switch", spec: sSection5 + " (role=switch, key press)", page: "activation.html", action: press(sel{"switch", "Marked ARIA switch"}, " "), want: "denied", reason: "user_step", kind: "interaction"},
	{name: "click a plain ARIA button", spec: sSection5 + " (allowed)", page: "activation.html", action: click(btn("Plain ARIA button")), want: "done", events: "click:aria-plain"},
	{name: "type in a marked contenteditable", spec: sInteractionControl + " (contenteditable)", page: "activation.html", action: typeIn(box("Message to the airline"), "hello"), want: "denied", reason: "user_step", kind: "interaction", noEvents: []string{"input:message"}},
	{name: "click a marked contenteditable", spec: sInteractionControl + " (contenteditable)", page: "activation.html", action: click(box("Message to the airline")), want: "denied", reason: "user_step", kind: "interaction"},
	{name: "type in an unmarked contenteditable", spec: sSection5 + " (allowed)", page: "activation.html", action: typeIn(box("Notes for the agent"), " more"), want: "done", events: "input:notes"},

	// Shadow trees (shadow.html).
	{name: "click in an open shadow tree", spec: sSection5 + " (allowed in a shadow tree)", page: "shadow.html", action: click(btn("Open shadow plain")), want: "done", events: "click:open-host"},
	{name: "click a marked button in an open shadow tree", spec: sInteractionControl + " (in a shadow tree)", page: "shadow.html", action: click(btn("Open shadow marked")), want: "denied", reason: "user_step", kind: "interaction"},
	{name: "click in the tree of a marked host", spec: sInteractionControl + " (a mark on a shadow host covers its tree)", page: "shadow.html", action: click(btn("Inside marked host")), want: "denied", reason: "user_step", kind: "interaction", marked: div("Marked open host")},
	{name: "fill a submission form in a shadow tree", spec: sSubmissionFill + " (in a shadow tree)", page: "shadow.html", action: typeIn(box("Shadow field"), "x"), want: "done", events: "input:form-host"},
	{name: "submit a submission form in a shadow tree", spec: sSubmissionSubmit + " (in a shadow tree)", page: "shadow.html", action: click(btn("Shadow submit")), want: "denied", reason: "user_step", kind: "submission", marked: form("shadow form")},

	{name: "click in a closed shadow tree", spec: sSection5 + " (allowed in a closed shadow tree)", page: "shadow.html", action: click(btn("Closed shadow plain")), want: "done", events: "click:closed-host"},
	{name: "click a marked button in a closed shadow tree", spec: sInteractionControl + " (in a closed shadow tree)", page: "shadow.html", action: click(btn("Closed shadow marked")), want: "denied", reason: "user_step", kind: "interaction", noEvents: []string{"click:closed-host"}},
	{name: "click in the closed tree of a marked host", spec: sInteractionControl + " (a mark on a closed shadow host covers its tree)", page: "shadow.html", action: click(btn("Closed host plain")), want: "denied", reason: "user_step", kind: "interaction", marked: div("Marked closed host")},
	{name: "Space on a focused marked button in a closed tree", spec: sSection5 + " (key press, focus inside a closed shadow tree)", page: "shadow.html", setup: []step{press(btn("Closed shadow plain"), "Tab")}, action: pressFocused(" "), want: "denied", reason: "user_step", kind: "interaction", marked: &sel{"button", "Closed shadow marked"}, noEvents: []string{"click:closed-host"}},

	// How forms are submitted (submit.html, issue 20).
	{name: "Enter where the default button is disabled", spec: sSubmissionFill + hDisabled, page: "submit.html", action: press(box("Disabled default field"), "Enter"), want: "done", events: "key:Enter@dd-field", noEvents: []string{"submit:", "posted"}},
	{name: "Enter where a disabled button outside the form is the default", spec: sSubmissionFill + hFormAttr, page: "submit.html", action: press(box("Owner field"), "Enter"), want: "done", events: "key:Enter@fa-field", noEvents: []string{"submit:", "posted"}},
	{name: "Enter where an image button is the default", spec: sSubmissionSubmit + hImage, page: "submit.html", action: press(box("Image form field"), "Enter"), want: "denied", reason: "user_step", kind: "submission", marked: form("image default form"), noEvents: []string{"submit:", "posted"}},
	{name: `Enter spelled "\r"`, spec: sSubmissionSubmit + hEnter, page: "submit.html", action: press(box("Enter spelling field"), "\r"), want: "denied", reason: "user_step", kind: "submission", marked: form("enter spellings form"), noEvents: []string{"key:", "submit:"}},
	{name: `Enter spelled "\n"`, spec: sSubmissionSubmit + hEnter, page: "submit.html", action: press(box("Enter spelling field"), "\n"), want: "denied", reason: "user_step", kind: "submission", marked: form("enter spellings form"), noEvents: []string{"key:", "submit:"}},
	{name: "Enter spelled Return", spec: sSubmissionSubmit + hEnter, page: "submit.html", action: press(box("Enter spelling field"), "Return"), want: "denied", reason: "user_step", kind: "submission", marked: form("enter spellings form"), noEvents: []string{"key:", "submit:"}},
	{name: "Enter spelled NumpadEnter", spec: sSubmissionSubmit + hEnter, page: "submit.html", action: press(box("Enter spelling field"), "NumpadEnter"), want: "denied", reason: "user_step", kind: "submission", marked: form("enter spellings form"), noEvents: []string{"key:", "submit:"}},
	{name: "form.submit() from the agent's click", spec: sSection5Script + hSubmitMethod, page: "submit.html", action: click(btn("Save draft")), want: "denied", reason: "user_step", kind: "submission", guard: true, marked: form("draft form"), events: "click:save-draft", noEvents: []string{"posted"}},
	{name: "form.submit() past a page listener that stops formdata", spec: sSection5Script + hSubmitMethod, page: "submit.html", action: click(btn("Save draft quietly")), want: "denied", reason: "user_step", kind: "submission", guard: true, marked: form("draft form"), events: "click:save-draft-quiet", noEvents: []string{"posted"}},
	{name: "requestSubmit() of a form in a shadow tree", spec: sSection5Script + hShadow, page: "submit.html", action: click(btn("Send the shadow form")), want: "denied", reason: "user_step", kind: "submission", guard: true, marked: form("shadow request form"), events: "click:shadow-request", noEvents: []string{"posted"}},
	{name: "form.submit() of a form in a shadow tree", spec: sSection5Script + hShadow + hSubmitMethod, page: "submit.html", action: click(btn("Submit the shadow form by script")), want: "denied", reason: "user_step", kind: "submission", guard: true, marked: form("shadow request form"), events: "click:shadow-submit", noEvents: []string{"posted"}},
	{name: "an input switched to submit in a shadow tree", spec: sSection5Script + hTypeSwitch, page: "submit.html", action: click(btn("Switch and send")), want: "denied", reason: "user_step", kind: "submission", guard: true, marked: form("shadow switch form"), events: "click:open-forms", noEvents: []string{"posted"}},
	{name: "fill a submission form in a closed root of a div", spec: sSubmissionFill + hClosedDiv, page: "submit.html", action: typeIn(box("Closed div field"), "x"), want: "done", events: "input:closed-div"},
	{name: "Enter in a focused field of a closed root of a div", spec: sSubmissionSubmit + hClosedDiv, page: "submit.html", action: pressFocused("Enter"), want: "denied", reason: "user_step", kind: "submission", marked: form("closed div form"), noEvents: []string{"posted"}},
	{name: "click the submit button in a closed root of a div", spec: sSubmissionSubmit + hClosedDiv, page: "submit.html", action: click(btn("Closed div pay")), want: "denied", reason: "user_step", kind: "submission", marked: form("closed div form"), noEvents: []string{"posted"}},
	{name: "the wheel over the page while a marked number field has focus", spec: sInteractionControl + " (HTML 4.10.5.1.12 Number state: the user agent may step the value; Chromium steps a focused number field by the wheel)", page: "submit.html", setup: []step{press(btn("Send the closed form"), "Tab")}, action: step{tool: "browser_scroll", args: map[string]any{"direction": "down"}}, want: "denied", reason: "user_step", kind: "interaction", marked: &sel{"spinbutton", "Passengers"}, noEvents: []string{"input:passengers", "change:passengers"}},
	{name: "the wheel over the page while an unmarked button has focus", spec: sRead, page: "submit.html", setup: []step{press(btn("Send the shadow form"), "Tab")}, action: step{tool: "browser_scroll", args: map[string]any{"direction": "down"}}, want: "done"},
	{name: "requestSubmit() of a form in a closed root of a div", spec: sSection5Script + hClosedDiv + hShadow, page: "submit.html", action: click(btn("Send the closed form")), want: "denied", reason: "user_step", kind: "submission", guard: true, marked: form("closed div form"), events: "click:closed-request", noEvents: []string{"posted"}},

	// Frames (frames.html: a same-origin iframe and an out-of-process one).
	{name: "click a marked button in a same-origin frame", spec: sInteractionControl + " (same-origin iframe)", page: "frames.html", action: click(btn("Same-origin marked button")), want: "denied", reason: "user_step", kind: "interaction"},
	{name: "click a plain button in a same-origin frame", spec: sSection5 + " (allowed in a frame)", page: "frames.html", action: click(btn("Same-origin plain button")), want: "done", events: "click:f-plain"},
	{name: "fill a submission form in a same-origin frame", spec: sSubmissionFill + " (same-origin iframe)", page: "frames.html", action: typeIn(box("Same-origin field"), "x"), want: "done", events: "input:f-field"},
	{name: "submit a submission form in a same-origin frame", spec: sSubmissionSubmit + " (same-origin iframe)", page: "frames.html", action: click(btn("Same-origin submit")), want: "denied", reason: "user_step", kind: "submission", marked: form("Same-origin frame form")},
	{name: "click a marked button in an out-of-process frame", spec: sInteractionControl + " (out-of-process iframe)", page: "frames.html", action: click(btn("Cross-site marked button")), want: "denied", reason: "user_step", kind: "interaction"},
	{name: "click a plain button in an out-of-process frame", spec: sSection5 + " (allowed in an out-of-process frame)", page: "frames.html", action: click(btn("Cross-site plain button")), want: "done", events: "click:f-plain"},
	{name: "fill a submission form in an out-of-process frame", spec: sSubmissionFill + " (out-of-process iframe)", page: "frames.html", action: typeIn(box("Cross-site field"), "x"), want: "done", events: "input:f-field"},
	{name: "Enter in a submission form in an out-of-process frame", spec: sSubmissionSubmit + " (out-of-process iframe, implicit submission)", page: "frames.html", action: press(box("Cross-site field"), "Enter"), want: "denied", reason: "user_step", kind: "submission", marked: form("Cross-site frame form")},

	// Pages that change (dynamic.html).
	{name: "a mark added after the snapshot", spec: sFresh, page: "dynamic.html", setup: []step{click(btn("Mark the pay later button"))}, action: click(btn("Pay later")), want: "denied", reason: "user_step", kind: "interaction", noEvents: []string{"click:later"}},
	{name: "an element replaced since the snapshot", spec: "BC-5-no-marked-step: (issue 3) an element replaced since the snapshot is a stale ref", page: "dynamic.html", setup: []step{click(btn("Replace the offer button"))}, action: click(btn("Accept offer")), want: "denied", reason: "stale_ref"},
	{name: "an overlay over the target", spec: "BC-5-no-marked-step: (issue 3) an element covering the target fails the action with reason obscured", page: "dynamic.html", setup: []step{click(btn("Show overlay"))}, action: click(btn("Behind the overlay")), want: "failed", reason: "obscured", noEvents: []string{"click:behind"}},
	{name: "a marked button moved under the pointer", spec: sSection5 + " (the in-page guard: a click that reaches a covered element)", page: "dynamic.html", action: click(btn("Swap on hover")), want: "denied", reason: "user_step", kind: "interaction", guard: true, anyBearer: true, noEvents: []string{"click:swapped"}},
	{name: "the page's script submits a marked form", spec: sSection5Script + " (the in-page guard: a submit)", page: "dynamic.html", action: click(btn("Quick pay")), want: "denied", reason: "user_step", kind: "submission", guard: true, marked: form("quick pay form"), events: "click:quick", noEvents: []string{"submit:"}},
	{name: "the page moves focus to a marked field", spec: sSection5 + " (the in-page guard: typing that reaches a covered field)", page: "dynamic.html", action: press(box("Promo code"), "x"), want: "denied", reason: "user_step", kind: "interaction", guard: true, marked: &sel{"textbox", "PIN"}, noEvents: []string{"input:pin"}},
}
