// Package control decides who holds the browser: the agent or the User
// (browser-control v1, section 5).
//
// # What it owns
//
// The holder ([spec.ControllerAgent] or [spec.ControllerUser]), the agent's
// offers of control to the User, the only-the-User-ends rule, the control
// epoch and the must-reobserve flag, the ordered event stream of changes,
// and the input lease that keeps the agent's input and a take apart. Its
// words for what happens: the event [Kind]s. It hands every [Event] to its
// [Recorder] (the audit log, which owns the line format).
//
// # What it must not do
//
// It talks to no browser, and it does not import package audit. What a
// change of holder does to the browser (navigator.poppy in every Company
// frame, the window's own input, the pages' size on the User's screen) is
// one [Handover] (package supervisor's), which control calls in its
// transitions: a take made on a phone ([User.TakeOn]) shows the pages at
// its size, [User.Resize] follows a rotation, and the agent's own viewport
// comes back before a hand back or cancel is published, so the new epoch
// is the agent's own layout. The audit log plugs in as a [Recorder]
// (package audit's Log, which imports control and owns the line format).
// The gate (package gate) asks [Control.Holder] before every action and
// holds the lease.
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
//   - [Event]: one thing that happened, of a typed [Kind] ([Offered],
//     [Declined], [Taken], [HandedBack], [Cancelled]), delivered in order to
//     every [Watch] (which owns its goroutine) and [Control.Subscribe]r.
//
// # Ordering and concurrency
//
// Every method is safe for concurrent use. Changes of holder are serialized:
// one transition at a time, and the [Handover] runs inside it, before the
// new state is published. Hence [Control.Holder] reads "user" only after
// the take's hand-over succeeded (every Company frame reads "user" before
// the change is reported done), and keeps reading "user" while a hand
// back's or cancel's runs. [Control.Status] and [Control.Holder] never wait
// for the Handover.
// Events and audit lines are produced under the state lock, so subscribers
// and the log see one order (a slow audit writer delays Status briefly).
//
// The audit log records offers and changes of holder. It never holds a
// credential, a token or text the User typed; this package handles none.
package control
