// Package errtext keeps error texts that carry user data (a panic's value,
// another process's error, a service's reply) to one line: logs and HTTP
// bodies split an error at its newlines, so they are escaped, as Go's %q
// would, and the value itself stays with the error that carries it.
package errtext

import "strings"

var escaper = strings.NewReplacer("\\", `\\`, "\n", `\n`, "\r", `\r`)

// OneLine is s with its backslashes, newlines and carriage returns
// escaped (\\, \n, \r): one line, from which s can be read back.
func OneLine(s string) string {
	if !strings.ContainsAny(s, "\n\r") {
		return s // the usual case: no copy, and backslashes left alone
	}
	return escaper.Replace(s)
}
