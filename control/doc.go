// Package control decides who holds the browser: the agent or the User
// (browser-control v1, section 5).
//
// # What it owns
//
// The holder ([spec.ControllerAgent] or [spec.ControllerUser]), the agent's
// offers of control to the User, the only-the-User-ends rule, the control
// epoch and the must-reobserve flag, the ordered event stream of changes,
// and the input lease that keeps the agent's input and a take apart. It
// records every offer and change of holder into an [audit.Log], which owns
// the line format.
//
// # What it must not do
//
// It talks to no browser. The package that sets navigator.poppy.controller in
// the Company's frames (injector) plugs in through [Options.Apply]; the gate (package
// gate) asks [Control.Holder] before every action and holds the lease.
// The pages follow the User's screen through [Options.Device]: a take made
// on a phone ([User.TakeOn]) shows them at its size, [User.Resize] follows
// a rotation, and the agent's own viewport comes back before a hand back or
// cancel is published, so the new epoch is the agent's own layout.
//
// # Rules
//
//   - Only the User ends their control, through the [User] handle:
//     [User.HandBack] or [User.Cancel]. No timer, page change, offer or
//     Company message ends it; no timer of this package does.
//   - The input lease: each agent action that dispatches holds one
//     ([Control.BeginAgentAction] for input, [Control.BeginAgentNavigation]
//     for a page load). A take refuses new leases, stops every navigation
//     in flight (its stop func) and waits for every lease to end, at most
//     [LeaseWait], before any frame reads "user". Input holds its lease for
//     milliseconds; a navigation is stopped rather than waited for, so the
//     agent never holds up the User's take for long.
//   - The agent never waits on the User: [Control.RequestUser] raises an offer
//     and returns at once. [Control.WaitForAgent] is for a caller that chose to
//     wait, bounded by its own context.
//   - When control returns to the agent, the epoch goes up by one (every
//     element ref taken before is stale) and [Status.MustReobserve] is set
//     until [Control.Observed] reports a fresh snapshot.
//
// # Main types
//
//   - [Control]: the state machine. Agent-side methods live on it.
//   - [User]: the User's handle (Take, HandBack, Cancel). Only the User's
//     channels (terminal UI, live view) should hold one; the agent's code
//     never needs it.
//   - [Event]: one change, delivered in order to every [Control.Subscribe]r.
//
// # Ordering and concurrency
//
// Every method is safe for concurrent use. Changes of holder are serialized:
// one transition at a time, and [Options.Apply] runs inside it, before the new
// state is published. Hence [Control.Holder] reads "user" only after Apply
// for the take succeeded (every Company frame reads "user" before the change
// is reported done), and keeps reading "user" while Apply for a hand back or
// cancel runs. [Control.Status] and [Control.Holder] never wait for Apply.
// Events and audit lines are produced under the state lock, so subscribers
// and the log see one order (a slow audit writer delays Status briefly).
//
// The audit log records offers and changes of holder. It never holds a
// credential, a token or text the User typed; this package handles none.
package control
