package device

import "strings"

// ptxEntries returns the names of the kernels (.entry directives) that PTX
// text defines, in order, skipping comments. LoadModule resolves each of
// them at load time (see Module).
func ptxEntries(ptx string) []string {
	var names []string
	for len(ptx) > 0 {
		i := strings.IndexAny(ptx, "/.")
		if i < 0 {
			break
		}
		ptx = ptx[i:]
		switch {
		case strings.HasPrefix(ptx, "//"):
			end := strings.IndexByte(ptx, '\n')
			if end < 0 {
				return names
			}
			ptx = ptx[end:]
		case strings.HasPrefix(ptx, "/*"):
			end := strings.Index(ptx[2:], "*/")
			if end < 0 {
				return names
			}
			ptx = ptx[end+4:]
		case strings.HasPrefix(ptx, ".entry") && len(ptx) > 6 && isPTXSpace(ptx[6]):
			rest := strings.TrimLeft(ptx[6:], " \t\r\n")
			n := 0
			for n < len(rest) && isPTXIdent(rest[n]) {
				n++
			}
			if n > 0 {
				names = append(names, rest[:n])
			}
			ptx = rest[n:]
		default:
			ptx = ptx[1:]
		}
	}
	return names
}

func isPTXSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// isPTXIdent: PTX identifiers are letters, digits, _ and $ (and % for
// registers, which are not kernel names).
func isPTXIdent(c byte) bool {
	return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
