// Package spec holds the browser-control v1 extension and the parts of the
// Poppy core specification it relies on, as data and pure functions.
//
// It owns:
//   - the names: [ExtensionName], [ExtensionVersion], the [HeaderExtensions]
//     header, the [MarkAttribute], the well-known path and the browser JWT type;
//   - the Poppy-Extensions header ([FormatExtensions], [ParseExtensions]), an
//     RFC 9651 List of Strings with a String parameter v;
//   - poppy.json ([ParseDocument], [Document]) and its validation;
//   - Company host matching ([NormalizeDomain], [MatchesDomain], [MatchesURL]):
//     organization.domain and its subdomains, never an IP literal (except a
//     development host of [NormalizeDevelopmentHost], for --no-join: that
//     IPv4 address only);
//   - mark values to kinds ([KindOf]);
//   - the names of the external contract (docs/reference.md): tools, outcomes,
//     reasons, controllers;
//   - the requirement catalogue ([Requirements]) that tests and the checker cite.
//
// It must not do I/O, log, or import other packages of this module.
//
// # Concurrency
//
// Every function is pure and safe for concurrent use. There is no package
// state; [Requirements] returns a fresh copy each call.
package spec
