package check

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"slices"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/gate"
	"github.com/poppy-browser/poppy-browser/marks"
	"github.com/poppy-browser/poppy-browser/spec"
)

const notAGuarantee = "Reading it is allowed, so this is no warning; but the value is not signed and anything in the page can change it: it is not a guarantee that the User took the step, so check the action's conditions on the server."

// controllerChecks reports a page that reads navigator.poppy.controller
// while it loads: the reminder of section 8.2, and whether the page shows
// the User something else (both views kept).
func (r *pageRun) controllerChecks(ctx context.Context, reads []string, agentView View) error {
	use := &ControllerUse{Reads: true, ReadFrames: reads}
	r.rep.Controller = use
	f := finding("controller-read", Info, CheckController, "BC-8.2-not-a-guarantee", "The page reads navigator.poppy.controller. "+notAGuarantee)
	f.Frame = reads[0]
	r.rep.Findings = append(r.rep.Findings, f)
	return r.asUser(ctx, func() error {
		if err := r.load(ctx, 0, max(len(r.rep.Marks), 1)); err != nil {
			return err
		}
		userView, err := r.view(ctx, spec.ControllerUser, r.readFrames(ctx))
		if err != nil {
			return err
		}
		if !slices.Equal(userView.Text, agentView.Text) {
			use.ChangesView = true
			r.rep.Views = append(r.rep.Views, userView)
			r.rep.Findings = append(r.rep.Findings, finding("controller-changes-view", Info, CheckController, "BC-6-not-relied-on",
				"The page shows the agent something other than the User (both views are in the report). A page may do this, so this is no warning, but it must not rely on \"user\" as a guarantee that the User took the step."))
		}
		return nil
	})
}

// submitIndex is the index of the form's first submit button among its
// controls, or -1: the form has no submit path.
func submitIndex(m marks.Marking) int {
	return slices.IndexFunc(m.Controls, func(o marks.Owned) bool {
		return (o.Tag == "button" && o.Type == "submit") || (o.Tag == "input" && (o.Type == "submit" || o.Type == "image"))
	})
}

// sent is what one submission probe saw.
type sent struct {
	req          *browser.Request
	readOnSubmit bool // the frame read the controller when the form was submitted
}

// submissions submits every marked form with a submit path on a fresh
// load, once as the User and once as the agent, every control filled in,
// with the request answered by the browser (nothing reaches the Company),
// and reports what the request carries of the controller, whether or not
// the page read it while loading.
func (r *pageRun) submissions(ctx context.Context, first []frameData, loadReads []string) error {
	for _, orig := range first {
		if !orig.company {
			continue
		}
		for mi, m := range orig.inv {
			if !m.Form || submitIndex(m) < 0 {
				continue
			}
			var asUser, asAgent sent
			err := r.asUser(ctx, func() (err error) {
				asUser, err = r.submitForm(ctx, orig, mi)
				return err
			})
			if err == nil {
				err = r.asAgent(func() (err error) {
					asAgent, err = r.submitForm(ctx, orig, mi)
					return err
				})
			}
			if err != nil {
				return err
			}
			r.reportSubmission(orig, m, asUser, asAgent, loadReads)
		}
	}
	return nil
}

// submitForm loads the page afresh, fills in every control of the form
// (as the User may), clicks its submit button and returns the request
// that followed, blocked.
func (r *pageRun) submitForm(ctx context.Context, orig frameData, mi int) (sent, error) {
	all, err := r.reload(ctx)
	if err != nil {
		return sent{}, err
	}
	fd, ok := sameFrame(all, orig)
	if !ok {
		return sent{}, nil
	}
	m := fd.inv[mi]
	rec, stop, err := r.record(ctx)
	if err != nil {
		return sent{}, err
	}
	defer stop()
	since := r.clocks(ctx, all)
	filled := false
	for _, o := range m.Controls {
		filled = r.fillControl(ctx, fd, o, true) || filled
	}
	// A page may send the form when a field changes (the fill probe
	// reports it): what the fills caused is waited for, so that a request
	// they made is never taken for the submit button's.
	if filled {
		if e := r.watchEffect(ctx, all, since, rec, 0); len(e.reqs) > 0 {
			return sent{}, nil
		}
	}
	before := -1
	if fd.company {
		if n, err := r.sv.ControllerReads(ctx, fd.f); err == nil {
			before = n
		}
	}
	since, sentBefore := r.clocks(ctx, all), len(rec.requests())
	// The User's click, as the User and as the agent alike: what the
	// request carries of the controller is compared.
	if given, _ := r.give(ctx, fd, m.Controls[submitIndex(m)].ID, gate.Click{}, true); !given {
		return sent{}, nil
	}
	e := r.watchEffect(ctx, all, since, rec, sentBefore)
	var out sent
	if len(e.reqs) > 0 {
		out.req = &e.reqs[0]
	} else {
		r.unsettledAfter(e, "submitting "+fd.describe(m.ID))
	}
	if n, err := r.sv.ControllerReads(ctx, fd.f); err == nil && before >= 0 && n > before {
		out.readOnSubmit = true
	}
	return out, nil
}

// reportSubmission records one form's submission probe and its finding.
func (r *pageRun) reportSubmission(fd frameData, m marks.Marking, asUser, asAgent sent, loadReads []string) {
	if asUser.req == nil && asAgent.req == nil {
		return // no request seen: a submission that leaves no trace cannot be observed
	}
	use := r.rep.Controller
	if use == nil {
		use = &ControllerUse{}
		r.rep.Controller = use
	}
	formName := fd.describe(m.ID)
	sub := Submission{Frame: fd.f.URL, Form: formName}
	userFields, agentFields := requestFields(asUser.req), requestFields(asAgent.req)
	if q := cmpReq(asUser.req, asAgent.req); q != nil {
		sub.Request = describeRequest(*q)
	}
	sub.Field = controllerField(userFields, agentFields)
	if sub.Field != "" {
		if v, ok := userFields[sub.Field]; ok {
			sub.AsUser = &v
		}
		if v, ok := agentFields[sub.Field]; ok {
			sub.AsAgent = &v
		}
	}
	use.Submissions = append(use.Submissions, sub)
	if use.Sent == nil {
		s := sub.Field != ""
		use.Sent, use.SentField = &s, sub.Field
	}
	if (asUser.readOnSubmit || asAgent.readOnSubmit) && len(loadReads) == 0 && !use.ReadsOnSubmit {
		use.Reads, use.ReadsOnSubmit = true, true
		use.ReadFrames = append(use.ReadFrames, fd.f.URL)
		f := finding("controller-read-on-submit", Info, CheckController, "BC-8.2-not-a-guarantee", fmt.Sprintf(
			"The page reads navigator.poppy.controller when %s is submitted. %s", noun(formName), notAGuarantee))
		f.Frame = fd.f.URL
		r.rep.Findings = append(r.rep.Findings, f)
	}
	msg := fmt.Sprintf("When the User submits %s, the request does not carry the controller. The page MAY send it (form.elements.controller.value = navigator.poppy?.controller), to record who was in control; sending it is optional, so this is no warning.", noun(formName))
	if sub.Field != "" {
		msg = fmt.Sprintf("When %s is submitted, the request carries the controller in the field %q: %s as the User, %s as the agent. Record it if useful, but do not rely on it: it is not a guarantee. Sending it is allowed, so this is no warning.",
			noun(formName), sub.Field, quoted(sub.AsUser), quoted(sub.AsAgent))
	}
	f := finding("controller-in-request", Info, CheckController, "BC-6-not-relied-on", msg).on(fd.idx, m.ID)
	f.Frame, f.Element = fd.f.URL, formName
	r.rep.Findings = append(r.rep.Findings, f)
}

func quoted(s *string) string {
	if s == nil {
		return "absent"
	}
	return fmt.Sprintf("%q", *s)
}

func cmpReq(a, b *browser.Request) *browser.Request {
	if a != nil {
		return a
	}
	return b
}

// describeRequest is "POST /path".
func describeRequest(q browser.Request) string {
	path := q.URL
	if u, err := url.Parse(q.URL); err == nil {
		path = u.Path
	}
	return q.Method + " " + path
}

// controllerField is the field whose value is "user" when the User
// submits, or else "agent" when the agent does.
func controllerField(user, agent map[string]string) string {
	for _, pass := range []struct {
		fields map[string]string
		want   spec.Controller
	}{{user, spec.ControllerUser}, {agent, spec.ControllerAgent}} {
		keys := make([]string, 0, len(pass.fields))
		for k := range pass.fields {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if pass.fields[k] == string(pass.want) {
				return k
			}
		}
	}
	return ""
}

var multipartField = regexp.MustCompile(`name="([^"]+)"\r\n\r\n([^\r]*)\r\n`)

// requestFields are a request's fields (first value each): its query, a
// urlencoded, multipart or JSON-object body.
func requestFields(q *browser.Request) map[string]string {
	out := map[string]string{}
	if q == nil {
		return out
	}
	add := func(vs url.Values) {
		for k, v := range vs {
			if _, ok := out[k]; !ok && len(v) > 0 {
				out[k] = v[0]
			}
		}
	}
	if u, err := url.Parse(q.URL); err == nil {
		add(u.Query())
	}
	var obj map[string]any
	switch {
	case json.Unmarshal([]byte(q.Body), &obj) == nil:
		for k, v := range obj {
			if s, ok := v.(string); ok {
				out[k] = s
			}
		}
	case multipartField.MatchString(q.Body):
		for _, m := range multipartField.FindAllStringSubmatch(q.Body, -1) {
			if _, ok := out[m[1]]; !ok {
				out[m[1]] = m[2]
			}
		}
	default:
		if v, err := url.ParseQuery(q.Body); err == nil {
			add(v)
		}
	}
	return out
}
