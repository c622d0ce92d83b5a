// Package secret owns the one redacting type of the program, [Value]: a
// credential, an API key or a token that prints, formats, logs and marshals
// as "[redacted]" however it is reached, and gives itself up only through
// [Value.Reveal].
//
// It must not hold anything but the value, and must not be used for what a
// user may need to read back (a URL, a host, an error).
package secret
