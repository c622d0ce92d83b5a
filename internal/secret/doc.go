// Package secret owns the one redacting type of the program, [Value]: a
// credential, an API key or a token that prints, formats, logs and marshals
// as "[redacted]" however it is reached, and gives itself up only through
// [Value.Reveal].
//
// It must not hold anything but the value, and must not be used for what a
// user may need to read back (a URL, a host, an error). For those, which
// may carry a secret without being one, [RedactURL] keeps a URL's scheme,
// host and path words and drops the rest (a pool's token in the query or
// the path, user info), and [RedactText] does so for every URL and bearer
// credential in a line of text (what a JSON log line may quote);
// [RedactingHandler] applies it to every record of a log, and
// [LineRecords] makes lines for a person into such records.
package secret
