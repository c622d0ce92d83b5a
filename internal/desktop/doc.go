// Package desktop is the User's way in when no terminal is theirs (the
// agent runs under a desktop MCP host, whose stderr goes to a log): where
// the live view's URL file lives by default, opening the live view in the
// User's own web browser, and a desktop notification.
//
// # What it owns
//
// [DefaultURLFile], [OpenLive] and the open-live subcommand ([RunOpenLive]) (the URL with its token reaches the web
// browser through a mode-0600 page in a private directory, never a command
// line other users can read) and [Notify] (best effort, bounded, never
// blocking its caller for long).
//
// # What it must not do
//
// Put the live view's token on a command line, in a notification, in an
// error or a log; wait without a bound on a helper program.
package desktop
