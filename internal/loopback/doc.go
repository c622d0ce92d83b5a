// Package loopback answers one security question in one place: does a
// listen address, or a host, stay on this machine? The HTTP servers
// (mcpserver's --http, ui's live view) and cmd's warnings ask it before
// they serve plain HTTP or trust a host; keeping one answer means a fix
// reaches every one of them.
package loopback
